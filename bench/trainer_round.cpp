#include "trainer_round.h"

#include "run/run_setup.h"
#include "train/trainer.h"

namespace bench {

Round trainer_round(const runner::Recipe& r, std::shared_ptr<runner::TaskModel> model,
                    const runner::RunData& data, long long steps) {
  using namespace runner;
  const nlohmann::json o = r.section("optimizer");
  const DataSettings d = data_settings_from(r.section("data"));
  SplitBatchSource source(data.train, data.train_split, train_sampler_config(d, 42), data.padding,
                          torch::kCPU);
  TrainerConfig cfg = trainer_config_from(r.section("train"));
  cfg.max_steps = steps;
  StepClock clock;
  Trainer trainer(cfg, model, make_optimizer(o, *model), make_schedule(r.section("scheduler"), o.at("lr")),
                  source, nullptr, {&clock});
  clock.last = Clock::now();
  TrainOutcome out = trainer.train();
  Round round;
  round.step_seconds = clock.step_seconds;
  round.samples = out.samples;
  round.tokens = source.tokens_served();
  return round;
}

}  // namespace bench
