// The stages of a training session (run/training_session.h) and run_session(),
// which drives them and keeps nothing of a new run refused before its first step.
#include "run/training_session.h"

#include "run/run_lock.h"
#include "run/session_parts.h"
#include "train/interrupt.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace runner {

TrainingSession::TrainingSession(const Recipe& recipe, SessionStart start)
    : parts_(std::make_unique<SessionParts>(recipe, std::move(start))) {}

TrainingSession::~TrainingSession() { unblock_interrupts_here(); }

void TrainingSession::setup() {
  SessionParts& p = *parts_;
  install_interrupt_handlers();
  exit_on_interrupt(true);  // until the loop can stop cleanly at a step
  p.summary.summary = {{"run_name", p.settings.run.name}, {"started_utc", utc_timestamp()}};
  p.summary.write("running");
  p.open_loggers();
  p.apply_process_settings();
  p.prepare_data();
  p.build_model();
  p.build_trainer();
  p.resume_trainer();
  exit_on_interrupt(false);
}

void TrainingSession::train() { parts_->outcome = parts_->trainer->train(); }

int TrainingSession::save() {
  SessionParts& p = *parts_;
  p.summarize_outcome();
  nlohmann::json& sum = p.summary.summary;
  if (p.outcome.status == TrainStatus::Interrupted) {
    sum["signal"] = p.outcome.signal;
    p.log->emit(p.end_event("interrupted", {{"signal", p.outcome.signal}}));
    p.summary.write("interrupted");
    return interrupt_exit_code(p.outcome.signal);
  }
  if (p.outcome.status == TrainStatus::Stopped) return p.save_stopped();
  sum["final"] = p.final_evaluation(p.reload_best());
  if (p.primary()) p.export_final_model();
  sum["final_model"] = p.start.paths.final_model();
  nlohmann::json ended = {{"final", sum["final"]}};
  if (sum.value("stopped_early", false)) ended["stopped_early"] = true;
  p.log->emit(p.end_event("completed", ended));
  p.summary.write("completed");
  release_run_dir(p.start.paths.dir);  // a completed run holds no lock file
  return 0;
}

void TrainingSession::close(const std::exception& e) {
  SessionParts& p = *parts_;
  auto* input = dynamic_cast<const InputError*>(&e);
  nlohmann::json& sum = p.summary.summary;
  // A LibTorch error's what() carries a C++ backtrace: the record keeps the message only.
  sum["error"] = input ? input->diagnostic().format() : without_backtrace(e.what());
  if (p.log) p.log->emit(p.end_event("failed", {{"error", sum["error"]}}));
  p.summary.write("failed");
}

void TrainingSession::abandon() { parts_->summary.stop_heartbeat(); }

namespace {

// A new single-process run whose input was refused before its first step holds
// nothing worth keeping: its directory goes, as a recipe refused at validate
// leaves none (a resumed or multi-process run keeps its directory and says why).
void discard_refused_run(const RunPaths& paths) {
  std::error_code ec;
  fs::remove_all(paths.dir, ec);
  const fs::path parent = fs::path(paths.dir).parent_path();
  fs::remove(parent, ec);  // only when empty: other runs of this name stay
  if (paths.created_output_dir) fs::remove(parent.parent_path(), ec);  // likewise
  std::cerr << fmt::format("run directory {} removed: its input was refused before the first step\n",
                           paths.dir);
}

}  // namespace

int run_session(const Recipe& recipe, SessionStart start) {
  const RunPaths paths = start.paths;
  const bool new_single_process_run = !start.resuming && !start.dist;
  TrainingSession session(recipe, std::move(start));  // the only holder of a resume's training state
  bool set_up = false;
  try {
    session.setup();
    set_up = true;
    session.train();
    return session.save();
  } catch (const InputError& e) {
    if (!set_up && new_single_process_run) {
      session.abandon();
      discard_refused_run(paths);
    } else {
      session.close(e);
    }
    throw;
  } catch (const std::exception& e) {
    session.close(e);
    throw;
  }
}

}  // namespace runner
