// A resume that is refused leaves the run as it was. The checks that can
// refuse it (the run's own records are regular files, the newest valid
// checkpoint's training state agrees with itself) run before the session
// rewrites summary.json, env.json or the event logs; a record replaced by a
// FIFO is refused at once instead of blocking the read or the append forever.
// A resume that goes on past a damaged checkpoint says so with its names escaped.
#include "train/checkpoint_io.h"
#include "util/synced_file.h"

#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <sys/stat.h>

namespace fs = std::filesystem;
using runner::test::run_command;
using runner::test::runner_exe;

namespace {

const char* const kRecords[] = {"summary.json", "recipe.resolved.json", "env.json", "metrics.jsonl", "train.log"};

// A completed smoke run of 8 steps (64 pairs, batch 16, 2 epochs), checkpoints at 4 and 8.
std::string finished_run() {
  static const std::string run = [] {
    std::string dir = runner::test::tmp_dir("refused_resume_run");
    auto r = run_command(runner_exe() + " " + runner::test::smoke_recipe() + runner::test::isolated_run_sets(dir) +
                         " --set data.max_train_examples=64 --set data.max_eval_examples=32");
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return runner::test::only_run_dir(dir);
  }();
  return run;
}

std::string copy_of_run(const std::string& name) {
  std::string to = runner::test::tmp_dir("refused_resume_" + name) + "/run";
  fs::copy(finished_run(), to, fs::copy_options::recursive);
  fs::remove(to + "/owner.lock");  // the copy's lock is a new file, as a fresh run's is
  return to;
}

std::map<std::string, std::string> records(const std::string& run) {
  std::map<std::string, std::string> out;
  for (const char* name : kRecords) out[name] = runner::test::read_text(run + "/" + name);
  return out;
}

// A longer schedule, so that the run has something to resume; `timeout` turns a
// hang on a FIFO into exit 124 rather than a test that never ends.
runner::test::CommandResult resume(const std::string& run) {
  return run_command("timeout 60 " + runner_exe() + " resume " + run +
                     " --set train.epochs=3 --allow-changes train.epochs");
}

}  // namespace

TEST_CASE("a resume refused for its checkpoint's training state changes none of the run's records", "[e2e]") {
  const std::vector<std::pair<std::string, nlohmann::json>> edits = {{"global_step", 7}, {"cuda_devices", 1}};
  for (const auto& edit : edits) {
    const std::string& key = edit.first;
    std::string run = copy_of_run(key);
    const auto before = records(run);
    runner::test::edit_checkpoint_state(run + "/checkpoints/step-00000008",
                                        [&edit](nlohmann::json& state) { state[edit.first] = edit.second; });
    auto r = resume(run);
    INFO(key << "\n" << r.out);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.out, Catch::Contains("step-00000008/" + std::string(key == "global_step" ? "state.json"
                                                                                            : "rng.safetensors")));
    CHECK_THAT(r.out, !Catch::Contains("map::at"));
    CHECK(records(run) == before);
  }
}

TEST_CASE("a run record that is a FIFO, a directory or a link is refused before the resume writes anything",
          "[e2e]") {
  for (const char* name : kRecords) {
    for (const std::string kind : {"fifo", "directory", "symlink"}) {
      std::string run = copy_of_run(kind + "_" + name);
      const std::string record = run + "/" + name, outside = run + "/../outside";
      fs::rename(record, outside);
      if (kind == "fifo") REQUIRE(::mkfifo(record.c_str(), 0644) == 0);
      if (kind == "directory") fs::create_directory(record);
      if (kind == "symlink") fs::create_symlink(outside, record);
      const std::string outside_before = runner::test::read_text(outside);
      auto r = resume(run);
      INFO(name << " as a " << kind << "\n" << r.out);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.out, Catch::Contains(record + ": error: expected the run's own record"));
      CHECK_THAT(r.out, !Catch::Contains("filesystem error") && !Catch::Contains("basic_filebuf"));
      CHECK(runner::test::read_text(outside) == outside_before);  // nothing appended through a link
      fs::remove(record);
      fs::rename(outside, record);
      CHECK_FALSE(fs::exists(run + "/summary.json.tmp"));
      fs::remove_all(run);  // fifteen copies of a run are 1.6 GB; the run they copy stays
    }
  }
}

TEST_CASE("a warning that quotes a damaged checkpoint's names is escaped, and the resume goes on", "[e2e]") {
  std::string run = copy_of_run("odd_names");
  // A stray folder whose name is not UTF-8, and a manifest key holding an escape sequence.
  fs::create_directory(run + "/checkpoints/step-9\xff");
  auto manifest = nlohmann::json::parse(runner::read_file_bytes(run + "/checkpoints/step-00000008/manifest.json"));
  manifest["files"]["\x1b[31mevil\x1b[0m"] = {{"sha256", "00"}, {"bytes", 1}};
  std::ofstream(run + "/checkpoints/step-00000008/manifest.json", std::ios::trunc) << manifest.dump(2);

  auto r = resume(run);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("\\x1b[31mevil"));  // the key shown escaped, falling back to step 4
  CHECK_THAT(r.out, !Catch::Contains("\x1b[31m") && !Catch::Contains("type_error"));
  const std::string log = runner::test::read_text(run + "/train.log");
  CHECK(log.find('\x1b') == std::string::npos);
  CHECK(log.find('\xff') == std::string::npos);
  std::istringstream metrics(runner::test::read_text(run + "/metrics.jsonl"));
  for (std::string line; std::getline(metrics, line);) {
    INFO(line);
    CHECK_FALSE(nlohmann::json::parse(line, nullptr, false).is_discarded());  // strict UTF-8 JSON, every line
  }
  CHECK(runner::test::run_summary(run)["status"] == "completed");
}
