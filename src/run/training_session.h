// One training run's lifecycle, as torchtune's recipes have it:
//   setup()  decodes each recipe section once, records the environment, and
//            builds the data, model, optimizer and trainer (continuing from the
//            newest valid checkpoint when resuming);
//   train()  runs the loop to completion, an early stop or an interrupt;
//   save()   writes the final evaluation, the exported model (final/) and
//            summary.json, and returns the exit code;
//   close()  records a failure in summary.json and the logs.
// run_session() drives them. Free of LibTorch in its interface.
#pragma once

#include "recipe/recipe.h"
#include "run/run_dir.h"
#include "run/run_records.h"

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace runner {

class DistContext;
struct TrainingState;

// What a session starts from: its run directory, whether it continues one, and
// under data parallelism the process group (null in a single-process run).
struct SessionStart {
  RunPaths paths;
  bool resuming = false;
  RecipeOrigin origin;
  std::vector<std::string> command_line;
  std::vector<std::string> allow_changes;
  std::shared_ptr<DistContext> dist;
  // The checkpoint a resume continues from, found by the resume checks (so the
  // session does not verify it again); empty: the session looks it up.
  std::optional<ResumePoint> resume_point;
  // That checkpoint's training state, read and checked with the other resume
  // checks, before the session rewrites any record: a damaged state.json is
  // refused with the run as it was.
  std::shared_ptr<const TrainingState> resume_state;
};

class TrainingSession {
 public:
  TrainingSession(const Recipe& recipe, SessionStart start);
  ~TrainingSession();
  TrainingSession(const TrainingSession&) = delete;
  TrainingSession& operator=(const TrainingSession&) = delete;

  void setup();
  void train();
  int save();
  void close(const std::exception& failure);
  // A run refused before its first step: its records stop being written.
  void abandon();

 private:
  struct Parts;  // what setup() builds (LibTorch types)
  std::unique_ptr<Parts> parts_;
};

// setup, train, save; on an exception, close(it) and rethrow.
int run_session(const Recipe& recipe, SessionStart start);

}  // namespace runner
