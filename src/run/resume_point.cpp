#include "run/resume_point.h"

#include "train/checkpoint_io.h"

#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace runner {

ResumePoint find_resume_point(const RunPaths& paths) {
  ResumePoint rp;
  auto warn = [&rp](const std::string& m) { rp.warnings.push_back(m); };
  std::optional<std::string> ckpt = newest_valid_checkpoint(paths.checkpoints(), warn);
  if (!ckpt) {
    rp.warnings.push_back("no valid checkpoint in " + paths.checkpoints() +
                          "; training starts again from step 0");
    return rp;
  }
  rp.checkpoint = *ckpt;
  rp.step = checkpoint_step(fs::path(*ckpt).filename().string()).value_or(0);
  return rp;
}

}  // namespace runner
