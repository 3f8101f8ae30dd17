// One training run's lifecycle, as torchtune's recipes have it:
//   setup()  records the environment, and builds the data, model, optimizer
//            and trainer from the settings decoded once (run/session_settings.h),
//            restoring the resume plan's checkpoint when resuming;
//   train()  runs the loop to completion, an early stop or an interrupt;
//   save()   writes the final evaluation, the exported model (final/) and
//            summary.json, and returns the exit code;
//   close()  records a failure in summary.json and the logs.
// run_session() drives them. Free of LibTorch in its interface.
#pragma once

#include "recipe/recipe.h"
#include "run/run_dir.h"
#include "run/session_settings.h"
#include "run/env_record.h"

#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace runner {

class DistContext;
struct ResumePlan;
struct SessionParts;

// What a session starts from: its run directory, whether it continues one, the
// recipe decoded once, and under data parallelism the process group (null in
// a single-process run).
struct SessionStart {
  RunPaths paths;
  bool resuming = false;
  RecipeOrigin origin;
  std::vector<std::string> command_line;
  std::vector<std::string> allow_changes;
  std::shared_ptr<DistContext> dist;
  SessionSettings settings;
  // A resume's plan (run/resume_plan.h), made and checked before the session
  // rewrites any record; null for a new run. The session restores from it.
  std::shared_ptr<ResumePlan> resume;
  long long stop_at_step = 0;   // RunOptions::stop_at_step
  long long stop_at_epoch = 0;  // RunOptions::stop_at_epoch
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
  std::unique_ptr<SessionParts> parts_;  // what setup() builds (run/session_parts.h)
};

// setup, train, save; on an exception, close(it) and rethrow.
int run_session(const Recipe& recipe, SessionStart start);

}  // namespace runner
