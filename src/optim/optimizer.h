// Optimizers over named LibTorch parameters with torch.optim (1.13, single-tensor,
// non-foreach) semantics. The learning rate is passed to every step: the schedule
// lives outside the optimizer, so its progress is just the saved step count.
#pragma once

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace runner {

struct NamedParameter {
  std::string name;
  torch::Tensor tensor;
};

// Optimizer state as named tensors ("<param>/exp_avg", "<param>/step", ...), so it
// can be saved and loaded bit-exactly with the rest of the training state.
using TensorMap = std::map<std::string, torch::Tensor>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update of every parameter that has a gradient, with this learning rate.
  virtual void step(double lr) = 0;
  virtual TensorMap state() const = 0;
  // Throws InputError naming the entry when the state does not fit the parameters.
  virtual void load_state(const TensorMap& state) = 0;

  // Zeroes the gradients in place (torch 1.13's zero_grad(set_to_none=False)).
  void zero_grad();
  double base_lr() const { return base_lr_; }
  const std::vector<NamedParameter>& parameters() const { return params_; }
  // Weight decay this optimizer applies to parameter i (0 for the no-decay ones).
  double weight_decay_of(size_t i) const { return decay_.at(i); }

 protected:
  Optimizer(std::vector<NamedParameter> params, double base_lr, double weight_decay,
            const std::vector<std::string>& no_decay);
  std::vector<NamedParameter> params_;
  std::vector<double> decay_;
  double base_lr_ = 0.0;
};

// True when `name` contains one of the patterns, as Hugging Face's examples pick
// the no-decay group ("bias", "LayerNorm.weight").
bool matches_no_decay(const std::string& name, const std::vector<std::string>& patterns);

// options: the resolved [optimizer] section.
using OptimizerFactory = std::function<std::unique_ptr<Optimizer>(
    const nlohmann::json& options, std::vector<NamedParameter> params)>;

}  // namespace runner
