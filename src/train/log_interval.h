// Running sums between two log events. The sums stay on the device so that no
// step waits for the host; the step reads them when it settles (a log line, an
// evaluation, a checkpoint) into the `settled` values. A checkpoint carries
// them (record / restore), so that a resumed run logs what an uninterrupted one would.
#pragma once

#include "train/batch_topology.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <chrono>
#include <optional>

namespace runner {

struct LogInterval {
  explicit LogInterval(const torch::Device& device)
      : loss_sum(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(device))),
        loss_steps(torch::zeros_like(loss_sum)) {}

  torch::Tensor loss_sum;    // float64: the mean window losses of the counted steps
  torch::Tensor loss_steps;  // float64: steps whose every micro-batch loss was finite
  torch::Tensor grad_norm;   // pre-clip norm of the last step that measured it
  torch::Tensor lr;          // the last step's learning rate
  struct Settled {
    double loss_sum = 0.0, loss_steps = 0.0, lr = 0.0;
    std::optional<double> grad_norm;
  } settled;
  long long steps = 0, samples = 0, tokens = 0;  // host counts
  std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
  // Spent evaluating and writing checkpoints since `since`: not training, so
  // left out of the interval's samples/s and tokens/s.
  std::chrono::steady_clock::duration paused{0};
  // When the last step's training ended (its evaluation and checkpoint follow),
  // and the interval's training seconds before a resume.
  std::chrono::steady_clock::time_point step_ended = since;
  double carried_s = 0.0;

  double trained_seconds(std::chrono::steady_clock::time_point until) const {
    return std::chrono::duration<double>(until - since - paused).count() + carried_s;
  }
  // As of the last settle: a checkpoint follows one. "steps" counts every step
  // of the interval, "loss_steps" those whose loss counted; "train_s" is the
  // interval's training time so far.
  nlohmann::json record() const;
  // The sums of a checkpoint's record, written by `then` workers, for `now`'s.
  void restore(const nlohmann::json& record, const BatchTopology& then, const BatchTopology& now);
};

}  // namespace runner
