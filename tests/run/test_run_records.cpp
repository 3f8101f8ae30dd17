// What a resume compares and how the event logs go back to a checkpoint.
#include "run/event_logs.h"
#include "run/run_changes.h"
#include "train/checkpoint_io.h"
#include "util/synced_file.h"
#include "util/diagnostic.h"

#include "shared.h"

#include "catch.h"

#include <fstream>

using namespace runner;

TEST_CASE("recipe changes are listed key by key", "[run]") {
  nlohmann::json before = {{"train", {{"epochs", 2.0}, {"log_every", 4}}}, {"run", {{"seed", 7}}}};
  nlohmann::json after = {{"train", {{"epochs", 3.0}, {"log_every", 4}}}, {"run", {{"seed", 7}}},
                          {"extra", {{"x", true}}}};
  auto changes = recipe_changes(before, after);
  REQUIRE(changes.size() == 2);
  CHECK(changes[0].key == "extra.x");
  CHECK(changes[0].before == "(absent)");
  CHECK(changes[1].key == "train.epochs");
  CHECK(changes[1].before == "2.0");
  CHECK(changes[1].after == "3.0");
  CHECK(recipe_changes(before, before).empty());
}

TEST_CASE("check_changes refuses what is not allowed and shows the diff", "[run]") {
  std::vector<RunChange> changes = {{"train.epochs", "2.0", "3.0"},
                                    {"content_sha256./d/train.tsv", "\"aa\"", "\"bb\""}};
  CHECK_THROWS_WITH(check_changes(changes, {"train.epochs"}, "/runs/x"),
                    Catch::Contains("content_sha256./d/train.tsv: \"aa\" -> \"bb\"") &&
                        !Catch::Contains("train.epochs: 2.0"));
  CHECK_THROWS_WITH(check_changes(changes, {}, "/runs/x"),
                    Catch::Contains("--allow-changes train.epochs,content_sha256./d/train.tsv"));
  // A key prefix allows the keys under it, not keys that merely start alike.
  CHECK_NOTHROW(check_changes(changes, {"train", "content_sha256"}, "/runs/x"));
  CHECK_THROWS(check_changes({{"trainer.x", "1", "2"}}, {"train"}, "/runs/x"));
}

TEST_CASE("content changes compare the sha256 of each file", "[run]") {
  nlohmann::json a = {{"/d/train.tsv", "aa"}, {"/d/dev.tsv", "cc"}};
  nlohmann::json b = {{"/d/train.tsv", "bb"}, {"/d/dev.tsv", "cc"}};
  auto changes = content_changes(a, b);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].key == "content_sha256./d/train.tsv");
}

TEST_CASE("the event logs are cut back to a checkpoint's step", "[run]") {
  RunPaths paths{runner::test::tmp_dir("cut_logs")};
  write_file_synced(paths.metrics(),
                    "{\"event\":\"start\",\"total_steps\":32}\n"
                    "{\"event\":\"train\",\"step\":4,\"loss\":0.7}\n"
                    "{\"event\":\"checkpoint\",\"step\":8}\n"
                    "{\"event\":\"train\",\"step\":9,\"loss\":0.6}\n"
                    "{\"event\":\"train\",\"st");  // torn by a kill
  write_file_synced(paths.log(),
                    "start total_steps=32\ntrain loss=0.7 step=4\ncheckpoint step=8\n"
                    "train loss=0.6 step=9 total_steps=32\n");
  cut_event_logs(paths, 8);
  CHECK(read_file_bytes(paths.metrics()) ==
        "{\"event\":\"start\",\"total_steps\":32}\n"
        "{\"event\":\"train\",\"step\":4,\"loss\":0.7}\n"
        "{\"event\":\"checkpoint\",\"step\":8}\n");
  CHECK(read_file_bytes(paths.log()) == "start total_steps=32\ntrain loss=0.7 step=4\ncheckpoint step=8\n");
}
