// The reference the Python stack runs, written with plain LibTorch: Transformers'
// BertForSequenceClassification (eager attention, every op on the padded batch)
// trained as Accelerate + torch.optim do it (torch::optim::AdamW, whose C++ step
// is the single-tensor loop, clip_grad_norm_, a linear warm-up/decay schedule).
// It shares nothing with src/model, so that the bench compares against an
// independent implementation; it copies the runner model's weights by name.
#pragma once

#include "model/model.h"
#include "train/autocast.h"

#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bench {

struct ReferenceShape {
  long long hidden = 0, layers = 0, heads = 0, intermediate = 0;
  double layer_norm_eps = 1e-12, dropout = 0.1;
};

// Reads the shape from a BERT config.json object (the runner model's hf_config()).
ReferenceShape reference_shape(const nlohmann::json& bert_config);

class ReferenceBert {
 public:
  // Copies every parameter of `model` (Hugging Face names) into fresh leaves.
  ReferenceBert(const runner::TaskModel& model, ReferenceShape shape);
  torch::Tensor loss(const runner::ModelBatch& batch);
  void set_training(bool on) { training_ = on; }  // dropout on (the default) or off
  std::vector<torch::Tensor> parameters() const { return order_; }
  // The parameter groups Transformers' Trainer makes: no decay for biases and LayerNorm weights.
  std::vector<torch::optim::OptimizerParamGroup> param_groups(double weight_decay) const;

 private:
  const torch::Tensor& p(const std::string& name) const { return params_.at(name); }
  torch::Tensor linear(const std::string& prefix, const torch::Tensor& x) const;
  torch::Tensor layer_norm(const std::string& prefix, const torch::Tensor& x) const;
  torch::Tensor embed(const runner::ModelBatch& b) const;
  torch::Tensor self_attention(const std::string& prefix, const torch::Tensor& h,
                               const torch::Tensor& mask) const;
  torch::Tensor layer(const std::string& prefix, const torch::Tensor& h, const torch::Tensor& mask) const;

  torch::Tensor dropout(const torch::Tensor& x) const {
    return torch::dropout(x, shape_.dropout, training_);
  }

  ReferenceShape shape_;
  bool training_ = true;
  std::map<std::string, torch::Tensor> params_;
  std::vector<std::string> names_;
  std::vector<torch::Tensor> order_;
};

// One optimizer step of the reference: forward (under autocast in `precision`,
// entered per forward as Accelerate does), backward, then update(): clip, AdamW,
// zero_grad and the schedule.
class ReferenceStep {
 public:
  ReferenceStep(ReferenceBert& model, runner::Precision precision, double lr, double weight_decay,
                double max_grad_norm, long long warmup_steps, long long total_steps);
  void step(const runner::ModelBatch& batch) {
    forward(batch).backward();
    update();
  }
  torch::Tensor forward(const runner::ModelBatch& batch);
  void update();
  double last_loss() const { return last_loss_; }

 private:
  double lr_at(long long step) const;

  ReferenceBert& model_;
  runner::Precision precision_;
  torch::optim::AdamW optimizer_;
  double lr_, max_grad_norm_;
  long long warmup_, total_, step_ = 0;
  double last_loss_ = 0;
};

}  // namespace bench
