// Output that cannot be written is an error, never a success. Standard output
// on /dev/full ends every command with exit 2 naming it; a pipe whose reader
// went away stops predict and tokenize at the next batch, quietly; a report
// that cannot be written whole leaves neither the report nor its temporary file.
#include "catch.h"

#include "bounded_run.h"
#include "report/report_fixtures.h"
#include "run_files.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::run_bounded;
using runner::test::runner_exe;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::string tokenizer_dir() { return runner::test::shared_dir() + "/models/bert-base-uncased"; }
std::string tiny_model() { return runner::test::shared_dir() + "/golden/tiny_bert"; }

// `lines` JSONL pairs in dir/pairs.jsonl.
std::string pairs_file(const std::string& dir, int lines) {
  std::string path = dir + "/pairs.jsonl";
  std::ofstream out(path);
  for (int i = 0; i < lines; ++i) out << R"({"text_a": "the cat sat", "text_b": "on the mat"})" << "\n";
  return path;
}

std::string predict_args(const std::string& input) {
  return " predict --model " + tiny_model() + " --tokenizer " + tokenizer_dir() + " --input " + input;
}

}  // namespace

TEST_CASE("standard output on /dev/full is exit 2 naming it, for every kind of command", "[cli]") {
  std::string dir = runner::test::tmp_dir("dev-full");
  std::string pairs = pairs_file(dir, 3);
  runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-aaaaaa", runner::test::FakeRun{});
  for (const std::string& args :
       {std::string(" env"), std::string(" --version"), std::string(" describe optimizer"),
        std::string(" completion bash"), " ls " + dir + "/runs", " ls --json " + dir + "/runs",
        " tokenize --tokenizer " + tokenizer_dir() + " --input " + pairs, predict_args(pairs),
        " validate " + runner::test::smoke_recipe()}) {
    // In a subshell: the harness sends the command's standard error to the captured output.
    auto r = runner::test::run_command("(timeout -s KILL 120 " + runner_exe() + args + " > /dev/full)");
    INFO(args << "\n" << r.out);
    CHECK(r.exit_code == 2);
    CHECK(has(r.out, "standard output: error: cannot be written: no space is left on the device"));
  }
}

TEST_CASE("a closed standard stream is never a file's number: run records stay whole, closed stdout is exit 2",
          "[cli]") {
  std::string dir = runner::test::tmp_dir("closed-streams");
  // The records hold their JSON alone (the console's lines went to none of them:
  // the closed stream's number was never a file's), and the completed run
  // removed its lock file.
  auto records_whole = [&](const std::string& runs) {
    std::string run = runner::test::only_run_dir(runs);
    nlohmann::json summary = nlohmann::json::parse(runner::test::read_text(run + "/summary.json"), nullptr, false);
    nlohmann::json env = nlohmann::json::parse(runner::test::read_text(run + "/env.json"), nullptr, false);
    return summary.is_object() && summary.value("status", "") == "completed" && env.is_object() &&
           !fs::exists(run + "/owner.lock");
  };
  const std::string run = runner_exe() + " " + runner::test::smoke_recipe() +
                          " --set data.max_train_examples=32 --set data.max_eval_examples=16";

  auto r = runner::test::run_command("(" + run + runner::test::isolated_run_sets(dir + "/stdout") + " >&- 2>" + dir +
                                     "/stdout.err); echo rc=$?");
  std::string err = runner::test::read_text(dir + "/stdout.err");
  INFO(r.out << "\n--- stderr:\n" << err);
  CHECK(has(r.out, "rc=2"));  // trained, and said that its directory line was lost
  CHECK(has(err, "standard output: error: cannot be written: standard output is closed"));
  CHECK(has(err, "not closed (>&-)"));
  CHECK(records_whole(dir + "/stdout"));

  r = runner::test::run_command("(" + run + runner::test::isolated_run_sets(dir + "/stderr") + " 2>&-); echo rc=$?");
  INFO(r.out);
  CHECK(has(r.out, "rc=0"));
  CHECK(has(r.out, dir + "/stderr/runs/mrpc_smoke/"));  // the directory line on standard output
  CHECK(records_whole(dir + "/stderr"));

  r = runner::test::run_command("(" + runner_exe() + " ls " + dir + "/stderr/runs >&- 2>" + dir + "/ls.err); echo rc=$?");
  INFO(r.out);  // the front alone, which hands nothing over
  CHECK(has(runner::test::read_text(dir + "/ls.err"), "standard output is closed"));
  CHECK(has(r.out, "rc=2"));
}

TEST_CASE("a checkpoint that a full disk stops is exit 2 with the fix, the run's records kept", "[cli]") {
  std::string dir = runner::test::tmp_dir("checkpoint-full");
  // A file size limit of 1 MiB stands in for a full disk: the records and the
  // token cache stay under it, a checkpoint of bert-tiny's 4.4 M parameters does not.
  auto r = runner::test::run_command("bash -c \"trap '' XFSZ; ulimit -f 1024; " + runner_exe() + " " +
                                     runner::test::smoke_recipe() + runner::test::isolated_run_sets(dir) +
                                     " --set data.max_train_examples=64 --set data.max_eval_examples=16\"");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(has(r.out, "the file grew past the largest the system allows"));
  CHECK(has(r.out, "runner resume RUN"));
  CHECK_FALSE(has(r.out, "std::"));
  auto summary = runner::test::run_summary(runner::test::only_run_dir(dir));
  CHECK(summary["status"] == "failed");
}

TEST_CASE("a closed pipe stops predict and tokenize at once, quietly", "[cli]") {
  // The feeder writes up to 200,000 lines and records how many the pipe took
  // before the command exited (it writes on until its pipe breaks). A command
  // that stops at the first failed write has read what it buffered: the pipe's
  // 64 KiB and a batch or two, a few thousand lines of these 56 bytes; one that
  // goes on reads all 200,000.
  std::string dir = runner::test::tmp_dir("closed-pipe");
  std::ofstream(dir + "/feed.sh") << "trap '' PIPE\nn=0\nwhile ((n < 200000)); do\n"
                                     "  printf '%s\\n' '{\"text_a\": \"the cat sat\", \"text_b\": \"on the mat\"}' "
                                     "2>/dev/null || break\n  ((n++))\ndone\necho $n > " + dir + "/fed\n";
  for (const std::string& args :
       {" predict --model " + tiny_model() + " --tokenizer " + tokenizer_dir(),
        " tokenize --tokenizer " + tokenizer_dir()}) {
    auto r = runner::test::run_command("bash -c 'bash " + dir + "/feed.sh | timeout -s KILL 300 " + runner_exe() +
                                       args + " 2>" + dir + "/err | head -c 10 >/dev/null; echo rc=${PIPESTATUS[1]}'");
    std::string err = runner::test::read_text(dir + "/err");
    INFO(args << "\n" << r.out << err);
    // A reader that leaves is normal for a pipe: no message, and SIGPIPE's status
    // (128 + 13), as a tool that SIGPIPE ended leaves it for `set -o pipefail`.
    CHECK(has(r.out, "rc=141"));
    CHECK(err.empty());
    CHECK(std::stol(runner::test::read_text(dir + "/fed")) < 100000);
  }
}

TEST_CASE("a report that cannot be written whole leaves no report and no temporary file", "[cli]") {
  std::string dir = runner::test::tmp_dir("report-full");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-aaaaaa", runner::test::FakeRun{});
  // A file size limit of 4 KiB stands in for a full disk: past it every write
  // fails (EFBIG; SIGXFSZ is ignored so that the write returns the error).
  auto r = run_bounded("bash -c \"trap '' XFSZ; ulimit -f 4; " + runner_exe() + " report " + run + " --out " +
                       dir + "/report.html\"");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(has(r.out, "report.html.tmp: the file grew past the largest the system allows"));
  CHECK_FALSE(fs::exists(dir + "/report.html"));
  CHECK_FALSE(fs::exists(dir + "/report.html.tmp"));
}
