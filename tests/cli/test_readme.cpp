// The README is the project's front door, so it is held to what the runner does:
// its set-up commands are the ones CI runs, its first job runs as shown (each
// command, and the keys of every line it shows), its command table names every
// command of `runner --help`, and every link of the README and docs/ resolves.
#include "catch.h"

#include "shared.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using runner::test::read_text;
using runner::test::run_command;
using runner::test::runner_exe;
using runner::test::source_dir;

namespace fs = std::filesystem;

namespace {

// The text of README section "## TITLE", up to the next "## ".
std::string readme_section(const std::string& title) {
  std::string readme = read_text(source_dir() + "/README.md");
  size_t start = readme.find("\n## " + title + "\n");
  REQUIRE(start != std::string::npos);
  size_t end = readme.find("\n## ", start + 1);
  return readme.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The lines of the first fenced block that opens with "```LANG" in `text`.
std::vector<std::string> fenced_block(const std::string& text, const std::string& lang) {
  size_t start = text.find("```" + lang + "\n");
  REQUIRE(start != std::string::npos);
  start += 4 + lang.size();
  size_t end = text.find("\n```", start);
  REQUIRE(end != std::string::npos);
  std::vector<std::string> lines;
  std::istringstream in(text.substr(start, end - start));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
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

// An event line: "2026-11-25T18:43:12Z +45.9s train step=40/40 ..." (after a
// minute the elapsed time reads "+1m14s").
const std::regex& event_line() {
  static const std::regex line(R"(^\d{4}-\d\d-\d\dT[\d:]+Z \+[0-9][0-9hms.]* (\w+) (.*)$)");
  return line;
}

// Per event kind ("train", "eval", ...), the keys of its first line, in order:
// "... train step=40/40 epoch=0 loss=0.6584 ..." -> "step epoch loss ...".
std::map<std::string, std::string> line_shapes(const std::vector<std::string>& lines) {
  static const std::regex key(R"((?:^| )(\w+)=)");
  std::map<std::string, std::string> out;
  for (const std::string& line : lines) {
    std::smatch m;
    if (!std::regex_match(line, m, event_line())) continue;
    std::string rest = m[2], keys;
    for (std::sregex_iterator k(rest.begin(), rest.end(), key), end; k != end; ++k) keys += (*k)[1].str() + " ";
    out.emplace(m[1], keys);
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A line with what changes from run to run taken out: `cwd` (absolute paths the
// runner prints), run ids, numbers, durations and repeated spaces.
std::string normalised(std::string line, const std::string& cwd) {
  for (size_t at; (at = line.find(cwd + "/")) != std::string::npos;) line.erase(at, cwd.size() + 1);
  line = std::regex_replace(line, std::regex(R"(\d{8}T\d{6}Z-[0-9a-f]{6})"), "ID");
  line = std::regex_replace(line, std::regex(R"(\d+(\.\d+)?)"), "N");
  line = std::regex_replace(line, std::regex(R"(N min N s)"), "N s");
  return std::regex_replace(line, std::regex(R"(\s+)"), " ");
}

// One "$ command" of a console block and the lines shown under it.
struct ShownCommand {
  std::string command;
  std::vector<std::string> shown;
  bool interrupted = false;  // a "^C" line: the reader pressed Ctrl-C
};

std::vector<ShownCommand> shown_commands(const std::vector<std::string>& block) {
  std::vector<ShownCommand> out;
  for (const std::string& line : block) {
    if (line.rfind("$ ", 0) == 0) out.push_back({line.substr(2), {}, false});
    else if (out.empty()) continue;
    else if (line == "^C") out.back().interrupted = true;
    else if (line != "...") out.back().shown.push_back(line);
  }
  return out;
}

// Runs a README command in `dir` as a reader would from the checkout.
runner::test::CommandResult run_as_shown(const ShownCommand& c, const std::string& dir) {
  const std::string exe = "./build/runner ";
  REQUIRE(c.command.rfind(exe, 0) == 0);
  // Ctrl-C is the runner's SIGINT/SIGTERM path; the test hook sends SIGTERM after step 12,
  // the step the README shows the run stopped at.
  std::string env = c.interrupted ? "RUNNER_TEST=1 RUNNER_TEST_TERM_AT_STEP=12 " : "";
  return run_command("cd " + dir + " && " + env + runner_exe() + " " + c.command.substr(exe.size()));
}

// Checks that what `printed` holds has the shape of every line shown: event lines
// the same kind and keys, other lines the same text up to numbers, ids and paths.
void check_shown(const ShownCommand& c, const std::string& printed, const std::string& dir) {
  auto printed_lines = split_lines(printed);
  auto printed_shapes = line_shapes(printed_lines);
  for (const auto& [kind, keys] : line_shapes(c.shown)) {
    INFO(c.command << ": the " << kind << " line");
    CHECK(printed_shapes[kind] == keys);
  }
  std::set<std::string> printed_plain;
  for (const std::string& line : printed_lines) printed_plain.insert(normalised(line, dir));
  for (const std::string& line : c.shown) {
    if (std::regex_match(line, event_line())) continue;
    INFO(c.command << ": the line \"" << line << "\"");
    CHECK(printed_plain.count(normalised(line, dir)) == 1);
  }
}

// Relative link targets of a Markdown file: [text](target) and src="target".
std::vector<std::string> link_targets(const std::string& text) {
  static const std::regex link(R"(\]\(([^)\s]+)\)|src="([^"]+)\")");
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
    std::string target = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
    if (target.find("://") == std::string::npos && target.rfind("mailto:", 0) != 0) out.push_back(target);
  }
  return out;
}

// The anchors GitHub makes of a Markdown file's headings: lower case, spaces to
// '-', every character but letters, digits, '-' and '_' dropped.
std::set<std::string> heading_anchors(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  bool in_code = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (in_code || line.empty() || line[0] != '#') continue;
    std::string title = line.substr(line.find_first_not_of('#')), anchor;
    for (char ch : title.substr(title.find_first_not_of(' '))) {
      unsigned char c = static_cast<unsigned char>(ch);
      if (std::isalnum(c) || c == '-' || c == '_') anchor += static_cast<char>(std::tolower(c));
      else if (c == ' ') anchor += '-';
    }
    out.insert(anchor);
  }
  return out;
}

std::vector<fs::path> documentation_files() {
  std::vector<fs::path> files = {fs::path(source_dir()) / "README.md"};
  for (const auto& e : fs::recursive_directory_iterator(fs::path(source_dir()) / "docs"))
    if (e.path().extension() == ".md") files.push_back(e.path());
  return files;
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

TEST_CASE("the README opens with the set-up command that CI runs", "[cli]") {
  auto ci = split_lines(read_text(source_dir() + "/.ci/run"));
  REQUIRE(!ci.empty());
  std::string ci_command = ci.back();  // .ci/run ends with the README's test command
  auto first_block = fenced_block(read_text(source_dir() + "/README.md"), "sh");
  REQUIRE(first_block.size() == 2);
  CHECK(first_block[0].rfind("./scripts/setup.sh && ./build/runner recipes/", 0) == 0);
  CHECK(first_block[1].rfind(ci_command + " ", 0) == 0);
}

TEST_CASE("the README's first job runs as shown", "[cli]") {
  std::string section = readme_section("First job");
  auto commands = shown_commands(fenced_block(section, "console"));
  std::set<std::string> kinds;
  for (const auto& c : commands)
    for (const auto& [kind, keys] : line_shapes(c.shown)) kinds.insert(kind);
  for (const char* kind : {"start", "train", "checkpoint", "eval", "end"}) {
    INFO(kind);
    CHECK(kinds.count(kind) == 1);  // the block shows each kind of line a run prints
  }

  std::string dir = runner::test::tmp_dir("readme-first-job");
  fs::create_directory_symlink(fs::path(source_dir()) / "recipes", fs::path(dir) / "recipes");
  for (const auto& c : commands) {
    INFO(c.command);
    auto r = run_as_shown(c, dir);
    INFO(r.out);
    if (c.interrupted) CHECK(r.exit_code != 0);
    else REQUIRE(r.exit_code == 0);
    check_shown(c, r.out, dir);
  }
  // report writes into the run directory (the only run under runs/mrpc_smoke).
  bool report_in_run = false;
  for (const auto& run : fs::directory_iterator(fs::path(dir) / "runs" / "mrpc_smoke"))
    report_in_run = report_in_run || fs::is_regular_file(run.path() / "report.html");
  CHECK(report_in_run);
  CHECK_FALSE(fs::exists(fs::path(dir) / "report.html"));
}

TEST_CASE("the links of the README and docs/ resolve", "[cli]") {
  for (const fs::path& file : documentation_files()) {
    std::string text = read_text(file.string());
    for (const std::string& target : link_targets(text)) {
      INFO(file.string() << ": " << target);
      size_t hash = target.find('#');
      std::string path = target.substr(0, hash);
      fs::path resolved = path.empty() ? file : file.parent_path() / path;
      REQUIRE(fs::exists(resolved));
      if (hash == std::string::npos || fs::is_directory(resolved)) continue;
      CHECK(heading_anchors(read_text(resolved.string())).count(target.substr(hash + 1)) == 1);
    }
  }
}

TEST_CASE("the README is a front door: short, and docs/ is linked from it", "[cli]") {
  std::string readme = read_text(source_dir() + "/README.md");
  CHECK(split_lines(readme).size() <= 250);
  for (const fs::path& file : documentation_files()) {
    if (file.filename() == "README.md") continue;
    std::string relative = fs::relative(file, source_dir()).string();
    INFO(relative);
    CHECK(readme.find("](" + relative + ")") != std::string::npos);
  }
}

TEST_CASE("the README's opening skims: short sentences, and what it does not do", "[cli]") {
  std::string readme = read_text(source_dir() + "/README.md");
  CHECK(readme.find("**What it does not do.**") != std::string::npos);
  // The prose of the first 60 lines, outside fenced blocks, tables and HTML.
  std::string prose;
  bool fenced = false;
  std::vector<std::string> lines = split_lines(readme);
  for (size_t i = 0; i < lines.size() && i < 60; ++i) {
    const std::string& line = lines[i];
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.rfind("```", 0) == 0 || line.rfind("|", 0) == 0 || line.rfind("<", 0) == 0) continue;
    prose += line + " ";
  }
  // A sentence ends at '.', ':' or ';' followed by a space (not inside "e.g." or a file name).
  std::regex end_of_sentence(R"([.:;] )");
  for (std::sregex_token_iterator it(prose.begin(), prose.end(), end_of_sentence, -1), stop; it != stop; ++it) {
    std::istringstream words(it->str());
    size_t count = 0;
    for (std::string w; words >> w;) count += w != "-";
    INFO(it->str());
    CHECK(count <= 30);
  }
}
