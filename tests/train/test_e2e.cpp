// End to end through the real `runner` executable: the smoke recipe trains and
// fills its run directory; a run killed with SIGKILL at three points and resumed
// each time ends bitwise equal to an uninterrupted one; SIGTERM checkpoints and
// exits 143; a resume with a changed recipe is refused with the diff.
#include "run/run_dir.h"
#include "train/checkpoint_io.h"
#include "util/synced_file.h"

#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <filesystem>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using runner::test::events;
using runner::test::only_run_dir;
using runner::test::isolated_run_sets;
using runner::test::run_command;
using runner::test::runner_cmd;

namespace {

using runner::test::smoke_recipe;

// Overrides that keep every test's files in its own directory and the numbers
// independent of the machine's core count.
// A short run with checkpoints every 4 steps and an evaluation every 6:
// 256 examples / 16 = 16 steps per epoch, 32 steps in all.
std::string resume_sets(const std::string& dir) {
  return isolated_run_sets(dir) +
         " --set train.checkpoint_every=4 --set train.eval_every=6 --set train.log_every=2";
}

// Train and eval events without their timings: what must repeat bit for bit.
std::vector<nlohmann::json> reproducible_events(const std::string& run_dir) {
  std::vector<nlohmann::json> out;
  for (const char* kind : {"train", "eval"})
    for (auto e : events(run_dir, kind)) {
      for (const char* timing : {"samples_per_s", "tokens_per_s", "wall_time", "elapsed_s"}) e.erase(timing);
      out.push_back(e);
    }
  return out;
}

nlohmann::json summary(const std::string& run_dir) { return runner::test::run_summary(run_dir); }

}  // namespace

TEST_CASE("the smoke recipe trains through `runner` and fills the run directory", "[e2e]") {
  std::string dir = runner::test::tmp_dir("e2e_smoke");
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  CHECK(std::regex_match(fs::path(run).filename().string(), std::regex(R"(\d{8}T\d{6}Z-[0-9a-f]{6})")));
  for (const char* f : {"recipe.given.toml", "recipe.resolved.json", "env.json", "metrics.jsonl",
                        "train.log", "summary.json", "final/config.json", "final/model.safetensors",
                        "final/vocab.txt"})
    CHECK(fs::is_regular_file(fs::path(run) / f));
  CHECK(runner::read_file_bytes(run + "/recipe.given.toml") == runner::read_file_bytes(smoke_recipe()));
  auto checkpoints = runner::list_checkpoints(run + "/checkpoints");
  REQUIRE_FALSE(checkpoints.empty());
  CHECK(runner::verify_checkpoint(checkpoints.back()).empty());

  nlohmann::json env = nlohmann::json::parse(runner::read_file_bytes(run + "/env.json"));
  CHECK(env["threads"] == 1);
  CHECK(env["seeds"]["run.seed"] == 7);
  // shared/data/README.md: the sha256 of MRPC train.tsv.
  // Keys are the paths the run read; ../shared may be reached through a symlink.
  fs::path train_tsv = fs::weakly_canonical(runner::test::shared_dir() + "/data/glue/MRPC/train.tsv");
  std::string train_hash;
  for (const auto& [path, hash] : env["content_sha256"].items())
    if (fs::weakly_canonical(path) == train_tsv) train_hash = hash.get<std::string>();
  CHECK(train_hash == "69abcedee3cf738c6ce58d772e43e1b7cdf5b4edee4aceda459c0d9f4e5599f3");

  nlohmann::json s = summary(run);
  CHECK(s["status"] == "completed");
  CHECK(s["global_step"] == 32);  // 2 epochs of 256 / 16
  CHECK(s["samples_per_s"].get<double>() > 0);
  CHECK(s["final"]["examples"] == 128);
  CHECK(s["final"].contains("accuracy"));
  CHECK(s["final"].contains("f1"));
  CHECK(s["best"]["metric"] == "eval.f1");  // MRPC's main metric, named as its eval events are

  auto train = events(run, "train");
  REQUIRE(train.size() == 8);  // log_every = 4
  INFO("first loss " << train.front()["loss"] << ", last " << train.back()["loss"]);
  CHECK(train.back()["loss"].get<double>() < train.front()["loss"].get<double>() - 0.02);
  std::string log = runner::read_file_bytes(run + "/train.log");
  // Plain lines after their time: "... train step=32/32 epoch=1 loss=... effective_batch=16 ...".
  CHECK(std::regex_search(log, std::regex(" train step=32/32 epoch=1 loss=")));
  CHECK(std::regex_search(log, std::regex(" data [^\n]* split=train")));
}

TEST_CASE("a run whose log pipe closes trains to the end and records it", "[e2e]") {
  // `head -c 1` exits after the first byte of the run's output: every later line
  // is written to a pipe with no reader. Under SIGPIPE's default action the
  // process died there with no summary; a write that fails must not end a run.
  // It trains to the end. Its exit code says whether its standard output (the run
  // directory line alone) reached the pipe: 0 when that line was written before
  // `head` left, 141 (SIGPIPE's status, no message) when it was not; which one is
  // a race of the two processes.
  std::string dir = runner::test::tmp_dir("e2e_closed_pipe");
  auto r = run_command("{ " + runner::test::runner_exe() + " " + smoke_recipe() + isolated_run_sets(dir) +
                       " 2>&1; echo $? >" + dir + "/exit_code; } | head -c 1 >/dev/null");
  INFO(r.out);
  const std::string exit_code = runner::read_file_bytes(dir + "/exit_code");
  CHECK((exit_code == "0\n" || exit_code == "141\n"));
  std::string run = only_run_dir(dir);
  CHECK(summary(run)["status"] == "completed");
  CHECK(fs::is_regular_file(fs::path(run) / "final/model.safetensors"));
}

TEST_CASE("a run killed at three points and resumed each time ends bitwise equal", "[e2e]") {
  std::string ref_dir = runner::test::tmp_dir("e2e_resume_ref");
  auto ref = runner_cmd("", smoke_recipe() + resume_sets(ref_dir));
  INFO(ref.out);
  REQUIRE(ref.exit_code == 0);
  std::string ref_run = only_run_dir(ref_dir);

  std::string dir = runner::test::tmp_dir("e2e_resume_killed");
  // 1. Mid-epoch, two steps after the checkpoint of step 8.
  auto r = runner_cmd("RUNNER_TEST_KILL_AT_STEP=10", smoke_recipe() + resume_sets(dir));
  INFO(r.out);
  REQUIRE(r.exit_code == 128 + 9);
  std::string run = only_run_dir(dir);
  CHECK(summary(run)["status"] == "running");
  // 2. Inside the write of the epoch-end checkpoint (step 16): resumes from 12.
  r = runner_cmd("RUNNER_TEST_KILL_IN_CHECKPOINT=16:optimizer.safetensors", "resume " + run);
  INFO(r.out);
  REQUIRE(r.exit_code == 128 + 9);
  CHECK_FALSE(fs::exists(run + "/checkpoints/step-00000016"));
  // 3. In the second epoch, right after an evaluation step's checkpoint was due (24).
  r = runner_cmd("RUNNER_TEST_KILL_AT_STEP=24", "resume " + run);
  INFO(r.out);
  REQUIRE(r.exit_code == 128 + 9);
  r = runner_cmd("", "resume " + run);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);

  CHECK(summary(run)["status"] == "completed");
  CHECK(summary(run)["final"] == summary(ref_run)["final"]);
  CHECK(summary(run)["best"]["value"] == summary(ref_run)["best"]["value"]);
  CHECK(runner::read_file_bytes(run + "/final/model.safetensors") ==
        runner::read_file_bytes(ref_run + "/final/model.safetensors"));
  // Every step's log and evaluation, once each and with the same bits.
  CHECK(reproducible_events(run) == reproducible_events(ref_run));
}

// Checkpoints are written in the background. The writer of step 8's checkpoint
// is held before its model file (a test hook) while the loop trains on, and the
// process is killed at step 10: step 4's checkpoint is the newest valid one.
// Resumed from there, mid-way through a log interval (log_every = 5), the first
// line after the resume and every later one equal the uninterrupted run's.
TEST_CASE("a kill -9 during a background checkpoint write resumes the previous checkpoint exactly",
          "[e2e]") {
  const std::string sets = " --set train.checkpoint_every=4 --set train.log_every=5";
  std::string ref_dir = runner::test::tmp_dir("e2e_async_ref");
  auto ref = runner_cmd("", smoke_recipe() + isolated_run_sets(ref_dir) + sets);
  INFO(ref.out);
  REQUIRE(ref.exit_code == 0);
  std::string ref_run = only_run_dir(ref_dir);

  std::string dir = runner::test::tmp_dir("e2e_async_killed");
  auto r = runner_cmd("RUNNER_TEST_PAUSE_IN_CHECKPOINT=8:model.safetensors:600000 RUNNER_TEST_KILL_AT_STEP=10",
                      smoke_recipe() + isolated_run_sets(dir) + sets);
  INFO(r.out);
  REQUIRE(r.exit_code == 128 + 9);
  CHECK_THAT(r.out, Catch::Contains("stall_s="));  // the console shows what the loop paid
  std::string run = only_run_dir(dir);
  // Killed mid-write: the state was written, the model not yet, nothing renamed.
  CHECK(fs::is_regular_file(run + "/checkpoints/.tmp-step-00000008/state.json"));
  CHECK_FALSE(fs::exists(run + "/checkpoints/.tmp-step-00000008/model.safetensors"));
  CHECK_FALSE(fs::exists(run + "/checkpoints/step-00000008"));
  CHECK(runner::newest_valid_checkpoint(run + "/checkpoints", nullptr) == run + "/checkpoints/step-00000004");

  r = runner_cmd("", "resume " + run);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(events(run, "start").back()["resumed_at_step"] == 4);
  CHECK(runner::read_file_bytes(run + "/final/model.safetensors") ==
        runner::read_file_bytes(ref_run + "/final/model.safetensors"));
  CHECK(summary(run)["final"] == summary(ref_run)["final"]);
  // The first log line after the resume (step 5) carries steps 1-4 from the checkpoint.
  auto first_after = reproducible_events(run), expected = reproducible_events(ref_run);
  REQUIRE_FALSE(first_after.empty());
  CHECK(first_after.front() == expected.front());
  CHECK(first_after == expected);
  nlohmann::json written = summary(run)["checkpoints"];
  CHECK(written["written"].get<long long>() >= 1);
  CHECK(written["stall_s"].get<double>() >= 0.0);
  CHECK(written["write_s"].get<double>() > 0.0);
}

TEST_CASE("SIGTERM finishes the step, checkpoints, exits 143 and the run resumes", "[e2e]") {
  std::string dir = runner::test::tmp_dir("e2e_sigterm");
  auto r = runner_cmd("RUNNER_TEST_TERM_AT_STEP=5", smoke_recipe() + isolated_run_sets(dir));
  INFO(r.out);
  REQUIRE(r.exit_code == 143);
  std::string run = only_run_dir(dir);
  CHECK(summary(run)["status"] == "interrupted");
  CHECK(summary(run)["signal"] == 15);
  CHECK(runner::verify_checkpoint(run + "/checkpoints/step-00000005").empty());
  // --resume auto picks this unfinished run rather than starting another.
  r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir) + " --resume auto");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(only_run_dir(dir) == run);
  CHECK(summary(run)["status"] == "completed");
  CHECK(summary(run)["global_step"] == 32);
  auto starts = events(run, "start");
  REQUIRE(starts.size() == 2);
  CHECK(starts[1]["resumed_at_step"] == 5);
}

TEST_CASE("resuming with a changed recipe is refused with the diff unless allowed", "[e2e]") {
  std::string dir = runner::test::tmp_dir("e2e_changed");
  std::string recipe = dir + "/smoke.toml";
  fs::copy_file(smoke_recipe(), recipe);
  auto r = runner_cmd("RUNNER_TEST_KILL_AT_STEP=3", recipe + isolated_run_sets(dir));
  INFO(r.out);
  REQUIRE(r.exit_code == 128 + 9);
  std::string run = only_run_dir(dir);
  std::string text = runner::read_file_bytes(recipe);
  text.replace(text.find("epochs = 2"), 10, "epochs = 3");
  std::ofstream(recipe, std::ios::trunc) << text;

  r = runner_cmd("", "resume " + run);
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("train.epochs: 2.0 -> 3.0"));
  CHECK_THAT(r.out, Catch::Contains("--allow-changes train.epochs"));
  CHECK(summary(run)["status"] == "running");  // untouched by the refused resume

  r = runner_cmd("", "resume " + run + " --set optimizer.lr=5e-4 --allow-changes train.epochs");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("optimizer.lr"));

  r = runner_cmd("", "resume " + run + " --allow-changes train.epochs");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(summary(run)["global_step"] == 48);
}

TEST_CASE("resuming a completed run changes nothing and says how to train it longer", "[e2e]") {
  std::string dir = runner::test::tmp_dir("e2e_resume_completed");
  REQUIRE(runner_cmd("", smoke_recipe() + isolated_run_sets(dir)).exit_code == 0);
  std::string run = only_run_dir(dir);
  const std::string summary_before = runner::read_file_bytes(run + "/summary.json");
  const std::string metrics_before = runner::read_file_bytes(run + "/metrics.jsonl");
  auto r = runner_cmd("", "resume " + run);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("completed all 32 steps: nothing to resume"));
  CHECK_THAT(r.out, Catch::Contains("--set train.epochs=N --allow-changes train.epochs"));
  CHECK(runner::read_file_bytes(run + "/summary.json") == summary_before);  // no new segment
  CHECK(runner::read_file_bytes(run + "/metrics.jsonl") == metrics_before);
  // A longer schedule goes ahead: one more epoch of 16 steps.
  r = runner_cmd("", "resume " + run + " --set train.epochs=3 --allow-changes train.epochs");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(summary(run)["global_step"] == 48);
}

TEST_CASE("resume refuses a directory that is not a run", "[e2e]") {
  std::string dir = runner::test::tmp_dir("e2e_not_a_run");
  auto r = runner_cmd("", "resume " + dir);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains(dir + "/env.json"));
}

// Each step lasts at least 20 ms (a test hook) and the bound is 6 ms: every
// step is past it, so every step checkpoints, whatever the machine's speed.
TEST_CASE("train.checkpoint_each_epoch checkpoints at every epoch's end", "[e2e]") {
  // 256 examples / 16 = 16 steps per epoch; epochs 2.5 end at 16, 32 and 40.
  std::string dir = runner::test::tmp_dir("e2e_checkpoint_each_epoch");
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir) +
                              " --set train.epochs=2.5 --set train.checkpoint_every=0"
                              " --set train.checkpoint_each_epoch=true");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::vector<long long> steps;
  for (const auto& e : events(only_run_dir(dir), "checkpoint")) steps.push_back(e["step"]);
  CHECK(steps == std::vector<long long>{16, 32, 40});
}

TEST_CASE("train.checkpoint_every_minutes checkpoints by time", "[e2e]") {
  std::string dir = runner::test::tmp_dir("e2e_checkpoint_minutes");
  auto r = runner_cmd("RUNNER_TEST_STEP_PAUSE_MS=20",
                      smoke_recipe() + isolated_run_sets(dir) +
                          " --set train.max_steps=5 --set train.checkpoint_every_minutes=0.0001");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::vector<long long> steps;
  for (const auto& e : events(only_run_dir(dir), "checkpoint")) steps.push_back(e["step"]);
  CHECK(steps == std::vector<long long>{1, 2, 3, 4, 5});

  // The default bound (30 minutes) is far past this run: only its end checkpoints.
  std::string plain = runner::test::tmp_dir("e2e_checkpoint_minutes_default");
  r = runner_cmd("", smoke_recipe() + isolated_run_sets(plain) + " --set train.max_steps=5");
  REQUIRE(r.exit_code == 0);
  steps.clear();
  for (const auto& e : events(only_run_dir(plain), "checkpoint")) steps.push_back(e["step"]);
  CHECK(steps == std::vector<long long>{5});

  r = runner_cmd("", "validate " + smoke_recipe() + " --set train.checkpoint_every_minutes=-1");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("train.checkpoint_every_minutes"));
}
