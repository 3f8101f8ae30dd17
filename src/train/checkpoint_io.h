// Crash-safe checkpoint directories, free of LibTorch: the caller hands over the
// files' bytes. A checkpoint is written into a temporary directory, every file
// fsynced, then a manifest with each file's sha256 and size, then renamed into
// place atomically and the parent directory fsynced. A directory that is not
// exactly what its manifest lists is never loaded.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct CheckpointFile {
  std::string name;   // plain file name inside the checkpoint directory
  std::string bytes;  // the file's first bytes (all of a small file)
  // Then these, in order: views into memory that `owner` keeps alive, so that a
  // large file is written from where its data lies instead of being copied into
  // one string first.
  std::vector<std::string_view> pieces;
  std::shared_ptr<const void> owner;
};

// Test hook: called before each file of checkpoint `checkpoint` ("step-00000042")
// is written; throwing from it simulates a failed write (full disk, I/O error).
using CheckpointWriteHook =
    std::function<void(const std::string& checkpoint, const std::string& file_name)>;

// Checkpoint directory name for an optimizer step: "step-00000042".
std::string checkpoint_name(long long step);
// The step of a checkpoint directory name, or nullopt if it is not one.
std::optional<long long> checkpoint_step(const std::string& name);

// Writes <checkpoints_dir>/<name>/ atomically and returns its path. Each file's
// sha256 is computed from the bytes as they are written (never read back). An
// existing valid checkpoint of that name is kept as is. Throws
// std::runtime_error naming the file and the OS error on failure; the temporary
// directory is removed and older checkpoints are untouched.
std::string write_checkpoint(const std::string& checkpoints_dir, const std::string& name,
                             const std::vector<CheckpointFile>& files,
                             const CheckpointWriteHook& hook = {});

// Empty when <dir>/manifest.json lists exactly the files present (at least one,
// none missing, none unlisted) with matching size and sha256; otherwise what is
// wrong ("model.safetensors: sha256 ..., the manifest says ...").
std::string verify_checkpoint(const std::string& dir);

// Checkpoint directories under checkpoints_dir, oldest step first.
std::vector<std::string> list_checkpoints(const std::string& checkpoints_dir);

// The newest checkpoint that verifies; each newer one that does not is reported
// through `warn` with its path and the reason, and skipped.
std::optional<std::string> newest_valid_checkpoint(
    const std::string& checkpoints_dir, const std::function<void(const std::string&)>& warn);

// Deletes checkpoints beyond the newest `keep_last`, but never `best_dir` and
// never the newest valid checkpoint. `just_written`, when given, is the
// checkpoint the caller has just written and is known valid: it is kept without
// reading it back, and the search for the newest valid one is skipped when it
// is the newest. Returns the deleted paths.
std::vector<std::string> prune_checkpoints(const std::string& checkpoints_dir, long long keep_last,
                                           const std::string& best_dir,
                                           const std::string& just_written = {});

}  // namespace runner
