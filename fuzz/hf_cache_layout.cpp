// A Hugging Face cache as another tool, a killed download or a hand edit leaves
// it. Each input line is one entry of models--org--tiny-bert:
//   ref NAME TEXT      refs/NAME holding TEXT
//   blob NAME TEXT     blobs/NAME holding TEXT
//   link PATH TARGET   a symbolic link at PATH (under the repository folder) to TARGET, anywhere
//   dir PATH           a folder
//   missing PATH       .no_exist/PATH (the repository lacks that file)
// Then the model and the tokenizer of org/tiny-bert are resolved offline, as
// `runner fetch` and `runner validate` resolve them with HF_HUB_OFFLINE=1.
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "hub/repo_id.h"
#include "hub/repo_resolution.h"

#include <filesystem>
#include <sstream>

namespace runner::fuzz {
namespace fs = std::filesystem;
namespace {

// A path under the repository folder: relative, no "..", at most 200 bytes;
// anything else becomes a fixed name, so the fuzzer cannot write outside its scratch.
std::string inside(const std::string& path) {
  fs::path p(path.substr(0, 200));
  bool safe = !path.empty() && p.is_relative() && path.find('\0') == std::string::npos;
  for (const auto& part : p)
    if (part == ".." || part == ".") safe = false;
  return safe ? p.string() : "snapshots/x/config.json";
}

void add_entry(const fs::path& repo, const std::string& line) {
  std::istringstream in(line);
  std::string kind, name, rest;
  in >> kind >> name;
  std::getline(in, rest);
  if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
  std::error_code ec;
  if (kind == "ref") write_scratch("hf/models--org--tiny-bert/refs/" + inside(name), rest);
  else if (kind == "blob") write_scratch("hf/models--org--tiny-bert/blobs/" + inside(name), rest);
  else if (kind == "missing") write_scratch("hf/models--org--tiny-bert/.no_exist/" + inside(name), "");
  else if (kind == "dir") fs::create_directories(repo / inside(name), ec);
  else if (kind == "link") {
    fs::path at = repo / inside(name);
    fs::create_directories(at.parent_path(), ec);
    fs::remove(at, ec);
    fs::create_symlink(rest.empty() ? "x" : rest, at, ec);
  }
}

}  // namespace

void hf_cache_layout(std::string_view bytes) {
  const fs::path repo = fs::path(scratch_dir()) / "hf" / "models--org--tiny-bert";
  fs::remove_all(fs::path(scratch_dir()) / "hf");
  fs::create_directories(repo);
  std::istringstream lines{std::string(bytes)};
  std::string line;
  for (int n = 0; n < 64 && std::getline(lines, line); ++n) {
    try {
      add_entry(repo, line);
    } catch (const std::exception&) {  // a layout the file system refuses (a file where a folder is): skipped
    }
  }
  hub::HubSettings settings;
  settings.cache_dir = scratch_dir() + "/hf";
  settings.endpoint = "http://127.0.0.1:9";  // never asked: offline
  settings.offline = true;
  for (hub::FileSet set : {hub::FileSet::Model, hub::FileSet::Tokenizer})
    refusing_is_fine([&] { hub::resolve_repo(*hub::parse_repo_id("org/tiny-bert"), set, settings); });
}

}  // namespace runner::fuzz
