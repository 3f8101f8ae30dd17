// GLUE tasks from their original sources: MRPC split exactly as GLUE's script
// splits it (byte-identical to ../shared's files), SST-2 unpacked from its zip,
// and every source checked against its pinned checksum.
#include "hub/glue_download.h"
#include "hub/glue_tasks.h"
#include "glue_files.h"
#include "hub_support.h"
#include "util/diagnostic.h"

#include "catch.h"
#include <zip.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace runner;
using namespace runner::test;

namespace {

std::string glue(const std::string& rel) { return shared_dir() + "/data/glue/" + rel; }

// A zip holding SST-2/{train,dev,test}.tsv of ../shared (not the original archive).
std::string make_sst2_zip(const std::string& dir) {
  std::string path = dir + "/SST-2.zip";
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z);
  for (const char* split : {"train.tsv", "dev.tsv", "test.tsv"}) {
    zip_source_t* src = zip_source_file(z, glue(std::string("SST-2/") + split).c_str(), 0, -1);
    REQUIRE(zip_file_add(z, (std::string("SST-2/") + split).c_str(), src, ZIP_FL_ENC_UTF_8) >= 0);
  }
  REQUIRE(zip_close(z) == 0);
  return path;
}

}  // namespace

TEST_CASE("hub: MRPC built from its sources is byte-identical to GLUE's train/dev/test.tsv", "[hub]") {
  std::string out = tmp_dir("glue-mrpc-build");
  hub::build_mrpc(glue("MRPC/source/msr_paraphrase_train.txt"), glue("MRPC/source/msr_paraphrase_test.txt"),
                  glue("MRPC/source/mrpc_dev_ids.tsv"), out);
  for (const char* split : {"train.tsv", "dev.tsv", "test.tsv"}) {
    INFO(split);
    CHECK(slurp(out + "/" + split) == slurp(glue(std::string("MRPC/") + split)));
  }
}

TEST_CASE("hub: glue/mrpc is downloaded, checked and cached, then found offline", "[hub]") {
  FakeHub hub;
  add_glue_sources(hub);
  setenv("RUNNER_GLUE_URL", (hub.url() + "/glue").c_str(), 1);
  std::string cache = tmp_dir("glue-mrpc-fetch");
  auto s = settings_for(hub, cache);
  auto r = hub::fetch_glue_task("mrpc", cache, s);
  CHECK(r.source == "download");
  CHECK(r.folder == cache + "/glue/MRPC");
  for (const char* split : {"train.tsv", "dev.tsv", "test.tsv"})
    CHECK(slurp(r.folder + "/" + split) == slurp(glue(std::string("MRPC/") + split)));
  // sha256 of train.tsv from ../shared/data/README.md
  CHECK(r.files[0].second == "69abcedee3cf738c6ce58d772e43e1b7cdf5b4edee4aceda459c0d9f4e5599f3");
  int requests = hub.count();
  s.offline = true;
  CHECK(hub::fetch_glue_task("mrpc", cache, s).source == "dataset_cache");
  CHECK(hub.count() == requests);
  unsetenv("RUNNER_GLUE_URL");
}

TEST_CASE("hub: a GLUE source with the wrong checksum is refused and nothing is cached", "[hub]") {
  FakeHub hub;
  add_glue_sources(hub);
  hub.add_plain("glue/msr_paraphrase_test.txt", "not the MRPC test file\n");
  setenv("RUNNER_GLUE_URL", (hub.url() + "/glue").c_str(), 1);
  std::string cache = tmp_dir("glue-mrpc-tampered");
  try {
    hub::fetch_glue_task("mrpc", cache, settings_for(hub, cache));
    FAIL("a tampered source was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.diagnostic().format(), Catch::Contains("msr_paraphrase_test.txt") &&
                                            Catch::Contains("a04e271090879aaba6423d65b94950c089298587d9c084bf9cd7439bd785f784"));
  }
  CHECK_FALSE(fs::exists(cache + "/glue/MRPC"));
  unsetenv("RUNNER_GLUE_URL");
}

TEST_CASE("hub: SST-2 is unpacked from its zip, and only GLUE's own zip is accepted", "[hub]") {
  std::string dir = tmp_dir("glue-sst2");
  std::string zip = make_sst2_zip(dir);
  fs::create_directories(dir + "/out");
  hub::extract_glue_zip(zip, "SST-2", {"train.tsv", "dev.tsv", "test.tsv"}, dir + "/out");
  for (const char* split : {"train.tsv", "dev.tsv", "test.tsv"})
    CHECK(slurp(dir + "/out/" + split) == slurp(glue(std::string("SST-2/") + split)));
  // Served in place of SST-2.zip, this archive has another MD5 than the one torchtext pins.
  FakeHub hub;
  hub.add_plain("glue/SST-2.zip", slurp(zip));
  setenv("RUNNER_GLUE_URL", (hub.url() + "/glue").c_str(), 1);
  try {
    hub::fetch_glue_task("sst2", dir + "/cache", settings_for(hub, dir + "/cache"));
    FAIL("an archive with the wrong MD5 was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.diagnostic().format(), Catch::Contains("SST-2.zip") && Catch::Contains("9f81648d4199384278b86e315dac217c"));
  }
  CHECK_FALSE(fs::exists(dir + "/cache/glue/SST-2"));
  unsetenv("RUNNER_GLUE_URL");
}

TEST_CASE("hub: each GLUE task's zip unpacks to its split files; a zip not GLUE's is refused", "[hub]") {
  // A made-up MNLI folder zipped as GLUE's MNLI.zip holds it: MNLI/<split files>.
  std::string dir = tmp_dir("glue-mnli-zip");
  std::string made = runner::test::write_glue_task(dir + "/made", "mnli");
  const hub::GlueTaskFiles* mnli = hub::find_glue_task("mnli");
  REQUIRE(mnli);
  int err = 0;
  zip_t* z = zip_open((dir + "/MNLI.zip").c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z);
  for (const auto& f : mnli->split_files) {
    zip_source_t* src = zip_source_file(z, (made + "/" + f).c_str(), 0, -1);
    REQUIRE(zip_file_add(z, ("MNLI/" + f).c_str(), src, ZIP_FL_ENC_UTF_8) >= 0);
  }
  REQUIRE(zip_close(z) == 0);
  fs::create_directories(dir + "/out");
  hub::extract_glue_zip(dir + "/MNLI.zip", mnli->folder, mnli->split_files, dir + "/out");
  for (const auto& f : mnli->split_files) CHECK(slurp(dir + "/out/" + f) == slurp(made + "/" + f));
  // Served as MNLI.zip, it is fetched by the download path and refused: its sha256 is not the pinned one.
  FakeHub hub;
  hub.add_plain("glue/MNLI.zip", slurp(dir + "/MNLI.zip"));
  setenv("RUNNER_GLUE_URL", (hub.url() + "/glue").c_str(), 1);
  try {
    hub::fetch_glue_task("mnli", dir + "/cache", settings_for(hub, dir + "/cache"));
    FAIL("an archive with the wrong sha256 was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.diagnostic().format(), Catch::Contains("MNLI.zip") && Catch::Contains(mnli->sources[0].digest));
  }
  CHECK_FALSE(fs::exists(dir + "/cache/glue/MNLI"));
  unsetenv("RUNNER_GLUE_URL");
  // Every task has a folder, split files and a source, and is found by its data-root folder.
  for (const auto& t : hub::glue_tasks()) {
    INFO(t.task);
    CHECK(hub::glue_task_of_folder("glue/" + t.folder) == t.task);
    CHECK_FALSE(t.sources.empty());
    CHECK(t.split_files.size() >= 3);
  }
  CHECK(hub::glue_tasks().size() == 9);
}

TEST_CASE("hub: a GLUE download that fails names RUNNER_GLUE_URL, the variable that points it, not HF_ENDPOINT",
          "[hub]") {
  FakeHub hub;
  setenv("RUNNER_GLUE_URL", "http://127.0.0.1:1/glue", 1);  // nothing listens on port 1
  std::string cache = tmp_dir("glue-unreachable");
  try {
    hub::fetch_glue_task("mrpc", cache, settings_for(hub, cache));
    FAIL("an unreachable source gave a dataset");
  } catch (const InputError& e) {
    INFO(e.diagnostic().format());
    CHECK_THAT(e.diagnostic().format(), Catch::Contains("RUNNER_GLUE_URL") && !Catch::Contains("HF_ENDPOINT"));
  }
  unsetenv("RUNNER_GLUE_URL");
}
