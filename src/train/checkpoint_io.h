// Crash-safe checkpoint directories, free of LibTorch: the caller hands over the
// files' bytes. A checkpoint is written into a temporary directory, every file
// fsynced, then a manifest with each file's sha256 and size, then renamed into
// place atomically and the parent directory fsynced. A directory that is not
// exactly what its manifest lists is never loaded.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct CheckpointFile {
  std::string name;   // plain file name inside the checkpoint directory
  std::string bytes;
};

// Test hook: called before each file is written with its name; throwing from it
// simulates a failed write (full disk, I/O error).
using CheckpointWriteHook = std::function<void(const std::string& file_name)>;

// Checkpoint directory name for an optimizer step: "step-00000042".
std::string checkpoint_name(long long step);
// The step of a checkpoint directory name, or nullopt if it is not one.
std::optional<long long> checkpoint_step(const std::string& name);

// Writes <checkpoints_dir>/<name>/ atomically and returns its path. An existing
// valid checkpoint of that name is kept as is. Throws std::runtime_error naming
// the file and the OS error on failure; the temporary directory is removed and
// older checkpoints are untouched.
std::string write_checkpoint(const std::string& checkpoints_dir, const std::string& name,
                             const std::vector<CheckpointFile>& files,
                             const CheckpointWriteHook& hook = {});

// Empty when <dir>/manifest.json lists exactly the files present with matching
// size and sha256; otherwise what is wrong ("model.safetensors: sha256 ... expected ...").
std::string verify_checkpoint(const std::string& dir);

// Checkpoint directories under checkpoints_dir, oldest step first.
std::vector<std::string> list_checkpoints(const std::string& checkpoints_dir);

// The newest checkpoint that verifies; each newer one that does not is reported
// through `warn` with its path and the reason, and skipped.
std::optional<std::string> newest_valid_checkpoint(
    const std::string& checkpoints_dir, const std::function<void(const std::string&)>& warn);

// Deletes checkpoints beyond the newest `keep_last`, but never `best_dir` and
// never the newest valid checkpoint. Returns the deleted paths.
std::vector<std::string> prune_checkpoints(const std::string& checkpoints_dir, long long keep_last,
                                           const std::string& best_dir);

// Writes a whole file and fsyncs it (no directory fsync); throws on failure.
void write_file_synced(const std::string& path, const std::string& bytes);
void fsync_directory(const std::string& dir);
std::string read_file_bytes(const std::string& path);  // throws std::runtime_error

}  // namespace runner
