// The samples/s (and tokens/s) of a log step are of training alone: an
// evaluation or a checkpoint inside the interval does not make them dip.
//
// No timed assertion: a logger sleeps inside each evaluation and checkpoint
// write (their events are emitted there) and in writing each train line, and
// reads the clock as it begins and ends writing a train line. The trainer's
// clock of an interval starts after the previous train line was written and
// stops before this one is begun, so the training time the rate implies can be
// at most the time between the two less the sleeps: an inequality whatever the
// machine's speed. A clock that ran through the evaluations, the checkpoints or the
// writing of a line fails it by the length of a sleep.
#include "golden_loop.h"

#include <chrono>
#include <thread>

using namespace runner;
using namespace runner::test;

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct SlowEvalAndCheckpoints : Logger {
  struct TrainLog {
    nlohmann::json event;
    Clock::time_point begun, ended;  // of writing the line
    double slept_before = 0;  // seconds slept in evaluations and checkpoints before it
    int naps_before = 0;
  };
  std::vector<TrainLog> train;
  double slept = 0;
  int naps = 0;
  void log(const nlohmann::json& e) override {
    if (e["event"] == "train") {
      const Clock::time_point begun = Clock::now();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a slow log sink
      train.push_back({e, begun, Clock::now(), slept, naps});
    }
    if (e["event"] == "eval" || e["event"] == "checkpoint") {
      const Clock::time_point began = Clock::now();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      slept += seconds(Clock::now() - began);
      ++naps;
    }
  }
};

}  // namespace

TEST_CASE("samples/s leaves the time of evaluations and checkpoints out", "[train][throughput]") {
  at::set_num_threads(1);
  GoldenData data = golden_train_data(8);  // 160 rows: 20 steps of exactly 8 samples
  EvalSet dev = golden_dev_set();
  GoldenLoop loop;
  TrainerConfig cfg = golden_trainer_config(loop);
  cfg.log_every = 2;
  cfg.eval_every = 4;  // steps 4, 8, ... evaluate and write a checkpoint after their log line
  cfg.checkpoint_every = 4;
  cfg.checkpoints_dir = tmp_dir("throughput-checkpoints");
  auto model = load_golden_tiny_bert();
  SlowEvalAndCheckpoints records;
  Trainer trainer(cfg, model, golden_adamw(*model), golden_schedule(), data.batches, &dev, {&records});
  const Clock::time_point started = Clock::now();  // before train() starts the first interval
  trainer.train();

  REQUIRE(records.train.size() == 10);
  // An evaluation and a checkpoint at each of steps 4, 8, 12 and 16 fell inside intervals.
  CHECK(records.train.back().naps_before == 8);
  for (size_t i = 0; i < records.train.size(); ++i) {
    const auto& now = records.train[i];
    const Clock::time_point from = i == 0 ? started : records.train[i - 1].ended;
    const long long step = now.event["step"];
    const long long previous = i == 0 ? 0 : records.train[i - 1].event["step"].get<long long>();
    const double rate = now.event["samples_per_s"];
    REQUIRE(rate > 0);
    const double trained = 8.0 * static_cast<double>(step - previous) / rate;  // the seconds the rate implies
    const double slept = now.slept_before - (i == 0 ? 0.0 : records.train[i - 1].slept_before);
    INFO("train event at step " << now.event["step"] << ": " << trained << " s of training, "
                                << seconds(now.begun - from) << " s between the lines, " << slept << " s asleep");
    // 1 ns: the clocks' resolution; the rate is a double quotient, exact to ~1e-16 relative.
    CHECK(trained <= seconds(now.begun - from) - slept + 1e-9);
  }
}
