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

// What one step reads from the device, where the trainer keeps it so that a
// step never waits for the host: the learning rate (a 0-d float64 tensor) and,
// when defined, a 0-d bool that makes the whole step a no-op when true (a
// non-finite loss or gradient), state and step counts included.
struct StepInputs {
  torch::Tensor lr;
  torch::Tensor skip;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update of every parameter that has a gradient.
  void step(const StepInputs& in) { apply(in); }
  void step(double lr);  // with a host learning rate, never skipped
  virtual TensorMap state() const = 0;
  // Throws InputError naming the entry when the state does not fit the parameters.
  virtual void load_state(const TensorMap& state) = 0;

  // Whether a step on `device` can be captured in a CUDA graph: it reads
  // nothing on the host and keeps its state's addresses (train/step_graphs.h).
  virtual bool capturable(const torch::Device& device) const { (void)device; return false; }

  // Zeroes the gradients in place (torch 1.13's zero_grad(set_to_none=False)).
  void zero_grad();
  double base_lr() const { return base_lr_; }
  const std::vector<NamedParameter>& parameters() const { return params_; }
  // Weight decay this optimizer applies to parameter i (0 for the no-decay ones).
  double weight_decay_of(size_t i) const { return decay_.at(i); }

 protected:
  Optimizer(std::vector<NamedParameter> params, double base_lr, double weight_decay,
            const std::vector<std::string>& no_decay);
  virtual void apply(const StepInputs& in) = 0;
  std::vector<NamedParameter> params_;
  std::vector<double> decay_;
  double base_lr_ = 0.0;
};

// True when `name` contains one of the patterns, as Hugging Face's examples pick
// the no-decay group ("bias", "LayerNorm.weight").
bool matches_no_decay(const std::string& name, const std::vector<std::string>& patterns);

// Which arithmetic Adam and AdamW run. Auto: the runner's one-pass kernel for
// float32 CPU parameters (optim/fused_adam.h), torch's fused kernel on other
// devices when this LibTorch has one (2.4 and later), else Ops, torch 1.13's op
// sequence. Tests choose the others to compare them.
enum class AdamKernel { Auto, Ops, TorchFused };
bool torch_has_fused_adam();
// options: the resolved [optimizer] section of "adam" (decoupled = false) or "adamw".
std::unique_ptr<Optimizer> make_adam_optimizer(const nlohmann::json& options,
                                               std::vector<NamedParameter> params, bool decoupled,
                                               AdamKernel kernel = AdamKernel::Auto);

// options: the resolved [optimizer] section of "sgd".
std::unique_ptr<Optimizer> make_sgd_optimizer(const nlohmann::json& options, std::vector<NamedParameter> params);

// A checkpoint's optimizer state entry `key`, on `like`'s device and dtype; an
// entry that is missing or of another shape than `like` is an InputError.
torch::Tensor optimizer_state_entry(const TensorMap& state, const std::string& key, const torch::Tensor& like);

// options: the resolved [optimizer] section.
using OptimizerFactory = std::function<std::unique_ptr<Optimizer>(
    const nlohmann::json& options, std::vector<NamedParameter> params)>;

}  // namespace runner
