// A run's checkpoints as `runner resume` and `runner export` find them: the
// first input line names a checkpoint directory, the rest is its
// manifest.json. Beside it sits a valid step-00000001, so the scan compares,
// verifies and falls back.
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "run/resume_point.h"
#include "train/checkpoint_io.h"

#include <filesystem>

namespace runner::fuzz {
namespace fs = std::filesystem;
namespace {

// A directory entry: one path component, no NUL, at most 255 bytes. Other
// names cannot reach the scan from a real file system.
std::string as_entry_name(std::string_view line) {
  std::string name(line.substr(0, 255));
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of(std::string("/\0", 2)) != std::string::npos)
    return "step-00000002";
  return name;
}

void write_checkpoint_dir(const std::string& dir, const std::string& manifest) {
  write_scratch(dir + "/model.safetensors", "weights");
  write_scratch(dir + "/training_state.json", "{}");
  write_scratch(dir + "/manifest.json", manifest);
}

}  // namespace

void checkpoint_manifest(std::string_view bytes) {
  size_t eol = bytes.find('\n');
  std::string name = as_entry_name(bytes.substr(0, eol));
  std::string_view manifest = eol == std::string_view::npos ? "" : bytes.substr(eol + 1);

  const std::string run = scratch_dir() + "/run";
  fs::remove_all(run);
  write_checkpoint_dir("run/checkpoints/step-00000001", R"({"files": {}})");
  write_checkpoint_dir("run/checkpoints/" + name, std::string(manifest));
  refusing_is_fine([&] {
    find_resume_point(RunPaths{run});
    checkpoint_step(name);
  });
}

}  // namespace runner::fuzz
