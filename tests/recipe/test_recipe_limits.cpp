// Recipes past any real recipe's size. Nested: a TOML dotted key or [table]
// header of 20,000 parts, 100,000 brackets, YAML (or JSON written as YAML)
// nested as deep. The parsers recurse once per level, so each is refused by a
// scan before parsing: exit 2 naming the file, the place and the limit, for
// `validate` (a file or standard input), `print-config` and a sweep file. A
// recipe's ordinary dots (numbers, strings, comments) are not nesting. Wide:
// 60,000 unknown keys print the first errors and the count of the rest.
#include "catch.h"

#include "bounded_run.h"
#include "shared.h"

#include "recipe/parse.h"

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace runner;
using test::run_bounded;
using test::runner_exe;

namespace {

std::string repeated(const std::string& part, int n, const std::string& separator) {
  std::string out;
  for (int k = 0; k < n; ++k) out += (k ? separator : "") + part;
  return out;
}

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir + "/" + name) << text;
  return dir + "/" + name;
}

// A refusal is exit 2 at the place, with the limit, well within seconds (the
// parsers' own recursion would overflow the stack: SIGSEGV, no message).
void check_refused_at(const test::BoundedResult& r, const std::string& place) {
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains(place) && Catch::Contains("more than 64 levels deep") &&
                        Catch::Contains("hint: a recipe is sections of options"));
  // Measured alone each refusal takes milliseconds; 10 s leaves room for a 2-core
  // machine shared by builds.
  CHECK(r.seconds < 10.0);
}

std::string deep_dotted_key() { return repeated("a", 20000, ".") + " = 1\n"; }

}  // namespace

TEST_CASE("a TOML key or header of 20,000 parts is refused by validate, stdin and print-config", "[recipe]") {
  std::string dir = test::tmp_dir("deep-toml");
  std::string key = write(dir, "key.toml", deep_dotted_key());
  std::string header = write(dir, "header.toml", "[" + repeated("a", 20000, ".") + "]\nx = 1\n");
  std::string brackets = write(dir, "brackets.toml", "x = " + std::string(100000, '[') + std::string(100000, ']') + "\n");
  std::string tables = write(dir, "tables.toml", "x = " + repeated("{a = ", 20000, "") + "1" + std::string(20000, '}') + "\n");
  // The 65th part is the limit's first step past: "a." is two characters a part.
  check_refused_at(run_bounded(runner_exe() + " validate " + key), key + ":1:130:");
  check_refused_at(run_bounded(runner_exe() + " validate " + header), header + ":1:129:");
  check_refused_at(run_bounded(runner_exe() + " validate " + brackets), brackets + ":1:69:");
  check_refused_at(run_bounded(runner_exe() + " validate " + tables), tables + ":1:");
  check_refused_at(run_bounded(runner_exe() + " validate - < " + key), "<stdin>:1:130:");
  check_refused_at(run_bounded(runner_exe() + " print-config " + header), header + ":1:129:");
}

TEST_CASE("YAML and JSON-style YAML nested 100,000 deep are refused at the 65th level", "[recipe]") {
  std::string dir = test::tmp_dir("deep-yaml");
  std::string flow = write(dir, "flow.yaml", "x: " + std::string(100000, '[') + std::string(100000, ']') + "\n");
  std::string json = write(dir, "json.yaml", repeated("{\"a\": ", 100000, "") + "1" + std::string(100000, '}') + "\n");
  std::string block;
  for (int level = 0; level < 20000; ++level) block += std::string(level, ' ') + "a:\n";
  std::string blocks = write(dir, "block.yaml", block);
  check_refused_at(run_bounded(runner_exe() + " validate " + flow), flow + ":1:");
  check_refused_at(run_bounded(runner_exe() + " validate " + json), json + ":1:");
  check_refused_at(run_bounded(runner_exe() + " validate " + blocks), blocks + ":");
}

TEST_CASE("a sweep file's deep [set] key is refused, naming the sweep file", "[recipe]") {
  std::string dir = test::tmp_dir("deep-sweep");
  std::string sweep = write(dir, "deep.toml", "base = \"" + test::smoke_recipe() + "\"\n[set]\n" + deep_dotted_key() +
                                                  "[grid]\n\"optimizer.lr\" = [1e-4]\n");
  check_refused_at(run_bounded(runner_exe() + " sweep --dry-run " + sweep), sweep + ":3:130:");
}

TEST_CASE("dots in numbers, strings and comments are not nesting; 64 levels of tables parse", "[recipe]") {
  std::string floats = "x = [" + repeated("1.5", 5000, ", ") + "]\n";
  std::string quoted = "x = \"" + repeated("a", 5000, ".") + "\"\ny = '" + repeated("b", 5000, ".") +
                       "'\nz = \"\"\"\n" + repeated("c", 5000, ".") + "\n\"\"\"\n# " + repeated("d", 5000, ".") + "\n";
  // 65 parts are 64 levels of tables around the value: the deepest allowed.
  std::string at_limit = repeated("a", 65, ".") + " = 1\n";
  std::string past_limit = repeated("a", 66, ".") + " = 1\n";
  for (const std::string& text : {floats, quoted, at_limit}) {
    ParsedFile parsed = parse_toml_text(text, "ok.toml");
    INFO(format_all(parsed.diags));
    CHECK(parsed.root.has_value());
    CHECK_FALSE(has_errors(parsed.diags));
  }
  ParsedFile refused = parse_toml_text(past_limit, "deep.toml");
  REQUIRE(refused.diags.size() == 1);
  CHECK_THAT(refused.diags[0].format(), Catch::StartsWith("deep.toml:1:130: error:"));
  ParsedFile yaml = parse_yaml_text("x: " + std::string(63, '[') + std::string(63, ']') + "\n", "ok.yaml");
  CHECK(yaml.root.has_value());
  CHECK_FALSE(has_errors(yaml.diags));
}

TEST_CASE("60,000 unknown keys print the first 50 errors and the count of the rest", "[recipe]") {
  std::string dir = test::tmp_dir("many-unknown");
  std::string text = "[run]\n";
  for (int k = 0; k < 60000; ++k) text += "unknown_" + std::to_string(k) + " = 1\n";
  std::string recipe = write(dir, "many.toml", text);
  auto r = run_bounded(runner_exe() + " validate " + recipe);
  INFO(r.out.substr(0, 2000));
  CHECK(r.exit_code == 2);
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  CHECK(lines < 200);  // 50 errors of two lines (error, hint), the count and the summary
  CHECK_THAT(r.out, Catch::Contains("many.toml:2:13: error: run.unknown_0: unknown key") && Catch::Contains("... and 59950 more, 60000 in all") &&
                        Catch::Contains("60000 errors; nothing was run"));
}

TEST_CASE("--set refuses hexadecimal for number options as it does for integer options", "[recipe]") {
  for (const char* set : {"train.checkpoint_every_minutes=0x10", "optimizer.lr=0X1p-3", "train.checkpoint_every=0x3"}) {
    auto r = run_bounded(runner_exe() + " validate " + test::smoke_recipe() + " --set " + set);
    INFO(set << "\n" << r.out);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.out, Catch::Contains(std::string("--set ") + set) && Catch::Contains("expected"));
  }
  auto decimal = run_bounded(runner_exe() + " validate " + test::smoke_recipe() +
                             " --set train.checkpoint_every_minutes=16");
  CHECK(decimal.exit_code == 0);
}
