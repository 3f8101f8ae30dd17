// Issue 28, item 9: the README opens with a quick start whose sample output is
// what the runner prints, and its command table names every command that
// `runner --help` lists (launch and resume were missing).
#include "catch.h"

#include "shared.h"

#include <map>
#include <regex>
#include <set>
#include <sstream>

using runner::test::read_text;
using runner::test::run_command;
using runner::test::runner_exe;
using runner::test::source_dir;

namespace {

// The text of README section "## TITLE", up to the next "## ".
std::string readme_section(const std::string& title) {
  std::string readme = read_text(source_dir() + "/README.md");
  size_t start = readme.find("\n## " + title + "\n");
  REQUIRE(start != std::string::npos);
  size_t end = readme.find("\n## ", start + 1);
  return readme.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The commands under "commands:" in `runner --help`.
std::vector<std::string> help_commands() {
  auto r = run_command(runner_exe() + " --help");
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> out;
  std::istringstream in(r.out.substr(r.out.find("commands:")));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    out.push_back(name);
  }
  return out;
}

// Per event kind ("train", "eval", ...), the keys of its first console line, in order:
// "2026-11-25T18:43:12Z +45.9s train step=40/40 epoch=0 loss=0.6584 ..." -> step epoch loss ...
std::map<std::string, std::string> line_shapes(const std::string& text) {
  static const std::regex line(R"((?:^|\n)\d{4}-\d\d-\d\dT[\d:]+Z \+[\d.]+s (\w+) ([^\n]*))");
  static const std::regex key(R"((?:^| )(\w+)=)");
  std::map<std::string, std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) {
    std::string kind = (*it)[1], rest = (*it)[2], keys;
    for (std::sregex_iterator k(rest.begin(), rest.end(), key); k != end; ++k) keys += (*k)[1].str() + " ";
    out.emplace(kind, keys);
  }
  return out;
}

}  // namespace

TEST_CASE("the README's command table names every command of runner --help", "[cli]") {
  std::string table = readme_section("Command line");
  for (const std::string& command : help_commands()) {
    INFO(command);
    bool named = table.find("`runner " + command) != std::string::npos ||
                 (command == "version" && table.find("`runner --version`") != std::string::npos);
    CHECK(named);
  }
}

TEST_CASE("the README's quick start shows the lines a run prints", "[cli]") {
  std::string readme = read_text(source_dir() + "/README.md");
  REQUIRE(readme.find("\n## Quick start\n") != std::string::npos);
  CHECK(readme.find("\n## Quick start\n") < readme.find("\n## Recipes\n"));  // it opens the README
  std::string sample = readme_section("Quick start");
  auto shown = line_shapes(sample);
  for (const char* kind : {"data", "setup", "start", "train", "eval", "checkpoint", "end"})
    CHECK(shown.count(kind) == 1);

  std::string dir = runner::test::tmp_dir("readme-quick-start");
  auto r = run_command(runner_exe() + " " + runner::test::smoke_recipe() + " --set run.output_dir=" + dir +
                       "/runs --set run.loggers=console,jsonl");
  REQUIRE(r.exit_code == 0);
  auto printed = line_shapes(r.out);
  for (const auto& [kind, keys] : shown) {
    INFO(kind);
    CHECK(printed[kind] == keys);
  }
  CHECK(sample.find("  see it with: runner report ") != std::string::npos);
  CHECK(r.out.find("  see it with: runner report ") != std::string::npos);
}
