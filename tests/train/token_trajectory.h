// The token and QA goldens' batches as the Trainer takes them, and the check
// of a run's logged steps against a golden trajectory (Transformers' or PEFT's).
#pragma once

#include "golden_loop.h"
#include "../model/token_golden.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace runner::test {

// A golden's "batches" as the Trainer takes them, each built by `batch_of(expected, i)`.
template <class BatchOf>
std::vector<TrainBatch> golden_train_batches(const nlohmann::ordered_json& expected, BatchOf batch_of) {
  std::vector<TrainBatch> out;
  for (size_t i = 0; i < expected.at("batches").size(); ++i) {
    TrainBatch t;
    t.tensors = batch_of(expected, i);
    t.examples = t.tensors.input_ids.size(0);
    t.tokens = t.tensors.attention_mask.sum().item<int64_t>();
    for (long long r = 0; r < t.examples; ++r) t.example_ids.push_back("row/" + std::to_string(i * 8 + r));
    out.push_back(std::move(t));
  }
  return out;
}

inline std::vector<TrainBatch> token_train_batches(const nlohmann::ordered_json& expected) {
  return golden_train_batches(expected, token_batch);
}

// The model of a golden folder trained by the golden loop (golden_loop.h:
// AdamW, its schedule, clipping) on `batches`: its logged train steps.
// `prepare` may set the model up first (its loss, its execution).
inline std::vector<nlohmann::json> golden_folder_train_steps(const std::string& folder,
                                                             std::vector<TrainBatch> batches,
                                                             const std::function<void(TaskModel&)>& prepare = {}) {
  GoldenData data{FixedBatches(std::move(batches)), {}};
  auto model = load_model_folder(folder).model;
  if (prepare) prepare(*model);
  Trainer trainer(golden_trainer_config(GoldenLoop{}), model, golden_adamw(*model), golden_schedule(), data.batches,
                  nullptr, std::vector<Logger*>{&data.capture});
  REQUIRE(trainer.total_steps() == 20);
  trainer.train();
  return data.capture.of("train");
}

struct TrajectoryWorst {
  double loss = 0, grad_norm = 0;  // the largest relative difference over the steps
  double largest() const { return std::max(loss, grad_norm); }
};

// The largest relative difference of the logged steps' losses and gradient
// norms from the golden's, without judging them.
template <class Json>
TrajectoryWorst trajectory_distance(const std::vector<nlohmann::json>& got, const Json& steps) {
  REQUIRE(got.size() == steps.size());
  TrajectoryWorst worst;
  for (size_t i = 0; i < steps.size(); ++i) {
    const double loss = steps[i].at("loss"), norm = steps[i].at("grad_norm_preclip");
    worst.loss = std::max(worst.loss, std::abs(got[i]["loss"].get<double>() - loss) / loss);
    worst.grad_norm = std::max(worst.grad_norm, std::abs(got[i]["grad_norm"].get<double>() - norm) / norm);
  }
  return worst;
}

// Each logged step's loss and gradient norm against the golden's, to
// `relative` (the caller's comment derives it); the worst of each, to report.
template <class Json>
TrajectoryWorst check_trajectory(const std::vector<nlohmann::json>& got, const Json& steps, double relative) {
  REQUIRE(got.size() == steps.size());
  TrajectoryWorst worst;
  for (size_t i = 0; i < steps.size(); ++i) {
    INFO("step " << i + 1);
    const double loss = steps[i].at("loss"), norm = steps[i].at("grad_norm_preclip");
    CHECK(got[i]["loss"].get<double>() == Approx(loss).epsilon(relative));
    CHECK(got[i]["grad_norm"].get<double>() == Approx(norm).epsilon(relative));
  }
  return trajectory_distance(got, steps);
}

}  // namespace runner::test
