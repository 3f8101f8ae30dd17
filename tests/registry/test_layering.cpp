// The shape of the code, checked on the source tree:
// - the folders of src/ form layers, listed low to high in docs/extending.md's
//   "Project layout" block; no file includes from a higher layer than its own;
// - no function in src/run or src/train is longer than 60 lines, no file of
//   src/ longer than 350;
// - no test comment cites an issue number;
// - summary.json is named only by the run-directory model (run/run_summary.h),
//   and a run's recipe settings are decoded in one place.
#include "catch.h"

#include "shared.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::vector<std::string> read_lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "src/util/  ..." lines of docs/extending.md's layout block, in order.
std::map<std::string, int> documented_layers() {
  std::map<std::string, int> rank;
  bool in_layout = false;
  static const std::regex folder(R"(^src/([a-z_]+)/)");
  for (const auto& line : read_lines(fs::path(runner::test::source_dir()) / "docs" / "extending.md")) {
    if (line.rfind("## Project layout", 0) == 0) in_layout = true;
    else if (in_layout && line.rfind("## ", 0) == 0) break;
    std::smatch m;
    if (in_layout && std::regex_search(line, m, folder)) rank.emplace(m[1], static_cast<int>(rank.size()));
  }
  return rank;
}

std::vector<fs::path> sources_under(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".cpp" || e.path().extension() == ".h") out.push_back(e.path());
  return out;
}

// Top-level and member function bodies: a line ending in "{" whose text looks
// like a signature, measured to the line holding its matching "}".
std::vector<std::pair<std::string, size_t>> function_lengths(const fs::path& file) {
  static const std::regex signature(R"(^\s*[A-Za-z_~][\w:<>,\s\*&~]*\([^;]*\)[\w\s&]*(->.*)?\{$)");
  static const std::regex control(R"(^\s*(if|for|while|switch|catch|else|do|return)\b)");
  std::vector<std::pair<std::string, size_t>> out;
  auto lines = read_lines(file);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!std::regex_match(lines[i], signature) || std::regex_search(lines[i], control)) continue;
    int depth = 0;
    for (size_t j = i; j < lines.size(); ++j) {
      for (char c : lines[j]) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      if (depth <= 0) {
        out.push_back({file.filename().string() + ":" + std::to_string(i + 1), j - i + 1});
        break;
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("layering: no include reaches up to a higher layer of the documented layout", "[layering]") {
  const auto rank = documented_layers();
  REQUIRE(rank.size() >= 10);
  const fs::path src = fs::path(runner::test::source_dir()) / "src";
  static const std::regex include(R"(^#include "([a-z_]+)/)");
  int checked = 0;
  for (const auto& dir : fs::directory_iterator(src)) {
    if (!dir.is_directory() || dir.path().filename() == "pch") continue;
    const std::string own = dir.path().filename().string();
    INFO("folder src/" << own);
    REQUIRE(rank.count(own) == 1);  // every folder has its place in docs/extending.md
    for (const auto& file : sources_under(dir.path()))
      for (const auto& line : read_lines(file)) {
        std::smatch m;
        if (!std::regex_search(line, m, include) || !rank.count(m[1])) continue;
        INFO(file.string() << ": " << line);
        CHECK(rank.at(m[1]) <= rank.at(own));
        ++checked;
      }
  }
  CHECK(checked > 100);
}

TEST_CASE("layering: no function in src/run or src/train is over 60 lines", "[layering]") {
  size_t measured = 0;
  for (const char* dir : {"run", "train"})
    for (const auto& file : sources_under(fs::path(runner::test::source_dir()) / "src" / dir))
      for (const auto& [where, length] : function_lengths(file)) {
        INFO(where << " is " << length << " lines");
        CHECK(length <= 60);
        ++measured;
      }
  CHECK(measured > 50);
}

// Past about 350 lines a file holds more than one concern: split it by concern.
TEST_CASE("layering: no file of src/ is over 350 lines", "[layering]") {
  size_t read = 0;
  for (const auto& file : sources_under(fs::path(runner::test::source_dir()) / "src")) {
    ++read;
    INFO(file.string());
    CHECK(read_lines(file).size() <= 350);
  }
  CHECK(read > 200);
}

// A test's comments say what the code does; the issue that asked for it, and
// the story of a fix, belong in the history.
TEST_CASE("layering: no test comment cites an issue by number", "[layering]") {
  static const std::regex citation(R"((//|#).*\b[Ii]ssue \d+)");
  size_t read = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(runner::test::source_dir()) / "tests")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".cpp" && ext != ".h" && ext != ".sh" && ext != ".py") continue;
    ++read;
    const std::vector<std::string> lines = read_lines(e.path());
    for (size_t i = 0; i < lines.size(); ++i) {
      INFO(e.path().string() << ":" << i + 1 << ": " << lines[i]);
      CHECK_FALSE(std::regex_search(lines[i], citation));
    }
  }
  CHECK(read > 100);
}

namespace {

// The files of src/ whose lines match `pattern`, as paths under src/.
std::vector<std::string> files_matching(const std::regex& pattern) {
  std::vector<std::string> out;
  const fs::path src = fs::path(runner::test::source_dir()) / "src";
  for (const auto& file : sources_under(src))
    for (const auto& line : read_lines(file))
      if (std::regex_search(line, pattern)) {
        out.push_back(fs::relative(file, src).string());
        break;
      }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("layering: summary.json is named by the run-directory model alone", "[layering]") {
  // Its path (RunPaths::summary(), or the file name in quotes): the model's
  // paths, its one reader, the writer, and the check that each record is a file
  // of its own, which looks at the file's kind and never reads it.
  // (A protobuf Event's summary() in the tensorboard logger is another thing.)
  static const std::regex names_summary(R"((paths?_?|\bp|\})\.summary\(\)|"/?summary\.json")");
  CHECK(files_matching(names_summary) == std::vector<std::string>{"run/record_integrity.cpp", "run/run_dir.h",
                                                                   "run/run_summary.cpp", "run/summary_writer.cpp"});
}

TEST_CASE("layering: a run's recipe settings are decoded in one place", "[layering]") {
  // decode_settings() (run/session_settings.cpp) once per `runner run` or
  // `runner resume`; `evaluate` decodes its own in split_evaluation.cpp, and
  // cli/run_names.cpp reads a recipe's [run] to find its runs without running it.
  static const std::regex decodes(R"(\b(run_settings_from|data_settings_from|trainer_config_from)\()");
  std::vector<std::string> callers;
  for (const auto& f : files_matching(decodes))
    if (f.rfind("run/", 0) == 0 || f.rfind("cli/", 0) == 0 || f.rfind("sweep/", 0) == 0) callers.push_back(f);
  CHECK(callers == std::vector<std::string>{"cli/run_names.cpp", "run/run_options.cpp", "run/run_options.h",
                                            "run/session_settings.cpp", "run/split_evaluation.cpp"});
  std::vector<std::string> decoders;
  for (const auto& f : files_matching(std::regex(R"(\bdecode_settings\()")))
    decoders.push_back(f);
  CHECK(decoders == std::vector<std::string>{"run/run_training.cpp", "run/session_settings.cpp",
                                             "run/session_settings.h"});
}
