// Arguments and text that must neither resolve to some run nor be printed
// raw. An empty run argument is refused; predict --model
// gets the PATH_MAX check of the other path flags; ESC, U+2028 and U+202E are
// escaped wherever a name or value reaches a terminal; bash completion keeps
// file names with spaces and newlines whole.
#include "catch.h"

#include "bounded_run.h"
#include "report/report_fixtures.h"
#include "shared.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::run_bounded;
using runner::test::runner_exe;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("an empty run argument is refused, not resolved to some run", "[cli]") {
  std::string dir = runner::test::tmp_dir("empty-run-arg");
  runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-aaaaaa", runner::test::FakeRun{});
  for (const char* command : {" report ''", " resume ''"}) {
    auto r = runner::test::run_command("cd " + dir + " && " + runner_exe() + command);
    INFO(command << "\n" << r.out);
    CHECK(r.exit_code == 2);
    CHECK(has(r.out, "found an empty argument"));
  }
}

TEST_CASE("ls '' and ls --runs '' are refused, not taken for the default folder or this one", "[cli]") {
  std::string dir = runner::test::tmp_dir("empty-ls-arg");
  runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-aaaaaa", runner::test::FakeRun{});
  for (const char* command : {" ls ''", " ls --runs ''", " ls --runs '' --runs runs"}) {
    auto r = runner::test::run_command("cd " + dir + " && " + runner_exe() + command + " 2>&1");
    INFO(command << "\n" << r.out);
    CHECK(r.exit_code == 2);
    CHECK(has(r.out, "expected a folder of runs, found an empty argument"));
  }
  auto listed = runner::test::run_command("cd " + dir + " && " + runner_exe() + " ls --runs runs");
  INFO(listed.out);
  CHECK(listed.exit_code == 0);
}

TEST_CASE("report's wrote line shows a U+202E in its --out path escaped", "[cli]") {
  std::string dir = runner::test::tmp_dir("report-out-escapes");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-aaaaaa", runner::test::FakeRun{});
  runner::test::write_text(dir + "/arg", dir + "/r\xe2\x80\xaelmth.html");
  auto r = runner::test::run_command(runner_exe() + " report " + run + " --out \"$(cat " + dir + "/arg)\" 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "wrote "));
  CHECK_FALSE(has(r.out, "\xe2\x80\xae"));
}

TEST_CASE("predict --model with a path past PATH_MAX gets the message other flags give", "[cli]") {
  auto r = run_bounded(runner_exe() + " predict --model /" + std::string(5000, 'm') + " --input /dev/null");
  INFO(r.out.substr(0, 400));
  CHECK(r.exit_code == 2);
  CHECK(has(r.out, "error: --model \"/mmmm"));
  CHECK(has(r.out, "name a shorter path"));
  CHECK(r.out.size() < 1000);  // not the whole path
}

TEST_CASE("ESC, U+2028 and U+202E reach no terminal through describe, compare, env and ls --json", "[cli]") {
  std::string hostile = "x\x1b[2J\xe2\x80\xa8y\xe2\x80\xae";
  std::string dir = runner::test::tmp_dir("escapes");
  runner::test::write_text(dir + "/arg", hostile);
  std::string arg = "\"$(cat " + dir + "/arg)\"";
  runner::test::FakeRun named;
  named.name = "n" + hostile;
  runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-aaaaaa", named);
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-bbbbbb", runner::test::FakeRun{});
  for (const std::string& command :
       {runner_exe() + " describe " + arg, runner_exe() + " describe optimizer " + arg,
        runner_exe() + " compare " + run + " " + run + " --metric " + arg,
        "HF_ENDPOINT=" + arg + " " + runner_exe() + " env", runner_exe() + " ls --json " + dir + "/runs"}) {
    auto r = runner::test::run_command(command);
    INFO(command << "\n" << r.out);
    CHECK_FALSE(has(r.out, "\x1b"));
    CHECK_FALSE(has(r.out, "\xe2\x80\xa8"));
    CHECK_FALSE(has(r.out, "\xe2\x80\xae"));
  }
}

TEST_CASE("bash completion keeps file names with spaces and newlines whole", "[cli]") {
  std::string dir = runner::test::tmp_dir("completion-names");
  REQUIRE(runner::test::run_command(runner_exe() + " completion bash > " + dir + "/runner.bash").exit_code == 0);
  fs::create_directories(dir + "/w");
  runner::test::write_text(dir + "/w/my recipe.toml", "");
  runner::test::write_text(dir + "/w/two\nlines.jsonl", "");
  // Each completion printed between brackets: a name cut in two shows as two.
  auto complete = [&](const std::string& words, int cword) {
    std::ofstream(dir + "/drive.sh") << "source " << dir << "/runner.bash\ncd " << dir << "/w\nCOMP_WORDS=(" << words
                                     << ")\nCOMP_CWORD=" << cword << "\n_runner\nprintf '[%s]' \"${COMPREPLY[@]}\"\n";
    auto r = runner::test::run_command("bash " + dir + "/drive.sh");
    INFO(r.out);
    CHECK(r.exit_code == 0);
    return r.out;
  };
  CHECK(has(complete("runner my", 1), "[my recipe.toml]"));
  CHECK(has(complete("runner tokenize --input tw", 3), "[two\nlines.jsonl]"));
}

TEST_CASE("a newline in a path or a --metric is shown escaped, the message staying one line", "[cli]") {
  std::string dir = runner::test::tmp_dir("newline-args");
  auto resume = runner::test::run_command("cd " + dir + " && " + runner_exe() + " resume \"$(printf './dup\\nx')\"");
  INFO(resume.out);
  CHECK(resume.exit_code == 2);
  CHECK(resume.out.rfind(dir + "/dup\\x0ax/", 0) == 0);  // the place, escaped, starts the first line
  CHECK_FALSE(has(resume.out, "\nx/"));
  // A bare name that names no run: the name escaped in the place and in the message.
  auto named = runner::test::run_command("cd " + dir + " && " + runner_exe() + " resume \"$(printf 'dup\\nx')\"");
  INFO(named.out);
  CHECK(named.exit_code == 2);
  CHECK(named.out.rfind("dup\\x0ax: error: names no run: no run name or run folder 'dup\\x0ax'", 0) == 0);
  CHECK_FALSE(has(named.out, "\nx"));
  std::string run_a = runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-aaaaaa", runner::test::FakeRun{});
  std::string run_b = runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-bbbbbb", runner::test::FakeRun{});
  auto compare = runner::test::run_command(runner_exe() + " compare " + run_a + " " + run_b + " --metric \"$(printf 'eval.f1\\nX')\"");
  INFO(compare.out);
  CHECK(compare.exit_code == 2);
  CHECK(has(compare.out, "eval.f1\\x0aX"));
  CHECK_FALSE(has(compare.out, "eval.f1\nX"));
}

TEST_CASE("validate --json writes U+2028 and U+202E of a recipe as JSON escapes", "[cli]") {
  std::string dir = runner::test::tmp_dir("json-bidi");
  std::ofstream(dir + "/bidi.toml") << "\"line\\u2028sep\\u202eflip\" = 1\n";
  auto r = runner::test::run_command(runner_exe() + " validate --json " + dir + "/bidi.toml");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(has(r.out, "line\\u2028sep\\u202eflip"));
  CHECK_FALSE(has(r.out, "\xe2\x80\xa8"));  // U+2028 as UTF-8
  CHECK_FALSE(has(r.out, "\xe2\x80\xae"));  // U+202E as UTF-8
}
