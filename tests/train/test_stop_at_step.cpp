// A stop step (what `runner run --stop-at-step` sets for a search's rung) ends
// the loop there with an evaluation and a checkpoint, while the schedule's
// length, and with it every other rule, stays the whole run's.
#include "train/training_scheduler.h"

#include "catch.h"

#include <chrono>
#include <vector>

using runner::TrainerConfig;
using runner::TrainingScheduler;

TEST_CASE("a stop step ends the run there, evaluated and checkpointed, the schedule unchanged", "[scheduler]") {
  TrainerConfig c = runner::train_options().defaults();
  c.log_every = 5;
  c.eval_every = 0;
  c.eval_each_epoch = false;
  c.checkpoint_every = 0;
  c.checkpoint_every_minutes = 0;
  c.checkpoints_dir = "runs/x/checkpoints";
  c.stop_at_step = 6;
  const std::vector<std::string> metrics = {"f1"};
  TrainingScheduler s(c, 14, &metrics);
  CHECK(s.total_steps() == 14);  // the learning-rate schedule spans 14 steps
  CHECK(s.keep_going(5));
  CHECK(s.ending(6));
  CHECK(s.stops_at(6));
  CHECK(s.evaluates_at(6, false));
  CHECK_FALSE(s.evaluates_at(5, false));
  CHECK(s.checkpoint_after(6, false, std::chrono::steady_clock::now()));
  // Logging keeps its own steps: the stop is not the run's last step.
  CHECK_FALSE(s.logs_at(6));
  // A stop at or past the schedule's end is the end itself: nothing is stopped.
  c.stop_at_step = 14;
  TrainingScheduler at_end(c, 14, &metrics);
  CHECK_FALSE(at_end.stops_at(14));
  CHECK(at_end.ending(14));
  CHECK(at_end.keep_going(13));
}
