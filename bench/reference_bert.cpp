#include "reference_bert.h"

#include <cmath>
#include <limits>

namespace bench {

ReferenceShape reference_shape(const nlohmann::json& c) {
  ReferenceShape s;
  s.hidden = c.at("hidden_size");
  s.layers = c.at("num_hidden_layers");
  s.heads = c.at("num_attention_heads");
  s.intermediate = c.at("intermediate_size");
  s.layer_norm_eps = c.value("layer_norm_eps", 1e-12);
  s.dropout = c.value("hidden_dropout_prob", 0.1);
  return s;
}

ReferenceBert::ReferenceBert(const runner::TaskModel& model, ReferenceShape shape)
    : shape_(shape) {
  for (const auto& item : model.named_parameters()) {
    auto leaf = item.value().detach().clone().requires_grad_(true);
    params_[item.key()] = leaf;
    names_.push_back(item.key());
    order_.push_back(leaf);
  }
}

std::vector<torch::optim::OptimizerParamGroup> ReferenceBert::param_groups(double weight_decay) const {
  std::vector<torch::Tensor> decay, no_decay;
  for (size_t i = 0; i < names_.size(); ++i) {
    const std::string& n = names_[i];
    bool exempt = n.find("bias") != std::string::npos || n.find("LayerNorm.weight") != std::string::npos;
    (exempt ? no_decay : decay).push_back(order_[i]);
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                 torch::optim::AdamWOptions().weight_decay(weight_decay)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(
                                    torch::optim::AdamWOptions().weight_decay(0.0)));
  return groups;
}

// F.linear, as nn.Linear calls it.
torch::Tensor ReferenceBert::linear(const std::string& prefix, const torch::Tensor& x) const {
  return torch::linear(x, p(prefix + ".weight"), p(prefix + ".bias"));
}

torch::Tensor ReferenceBert::layer_norm(const std::string& prefix, const torch::Tensor& x) const {
  return torch::layer_norm(x, {shape_.hidden}, p(prefix + ".weight"), p(prefix + ".bias"),
                           shape_.layer_norm_eps);
}

torch::Tensor ReferenceBert::embed(const runner::ModelBatch& b) const {
  const std::string e = "bert.embeddings.";
  auto positions = torch::arange(b.input_ids.size(1), b.input_ids.options()).unsqueeze(0);
  auto x = torch::embedding(p(e + "word_embeddings.weight"), b.input_ids, 0) +
           torch::embedding(p(e + "token_type_embeddings.weight"), b.token_type_ids);
  x = x + torch::embedding(p(e + "position_embeddings.weight"), positions);
  return dropout(layer_norm(e + "LayerNorm", x));
}

torch::Tensor ReferenceBert::self_attention(const std::string& prefix, const torch::Tensor& h,
                                            const torch::Tensor& mask) const {
  const long long batch = h.size(0), length = h.size(1), d = shape_.hidden / shape_.heads;
  auto heads = [&](const torch::Tensor& x) {
    return x.view({batch, length, shape_.heads, d}).permute({0, 2, 1, 3});
  };
  auto q = linear(prefix + ".query", h);
  auto k = heads(linear(prefix + ".key", h)), v = heads(linear(prefix + ".value", h));
  auto scores = torch::matmul(heads(q), k.transpose(-1, -2)) / std::sqrt(static_cast<double>(d));
  auto probs = dropout(torch::softmax(scores + mask, -1));
  return torch::matmul(probs, v).permute({0, 2, 1, 3}).contiguous().view({batch, length, shape_.hidden});
}

torch::Tensor ReferenceBert::layer(const std::string& prefix, const torch::Tensor& h,
                                   const torch::Tensor& mask) const {
  auto a = self_attention(prefix + ".attention.self", h, mask);
  a = linear(prefix + ".attention.output.dense", a);
  a = layer_norm(prefix + ".attention.output.LayerNorm", dropout(a) + h);
  auto i = torch::gelu(linear(prefix + ".intermediate.dense", a));
  auto o = dropout(linear(prefix + ".output.dense", i));
  return layer_norm(prefix + ".output.LayerNorm", o + a);
}

torch::Tensor ReferenceBert::loss(const runner::ModelBatch& b) {
  // get_extended_attention_mask: (1 - mask) * finfo(dtype).min, broadcast over heads and queries.
  auto mask = (1.0 - b.attention_mask.unsqueeze(1).unsqueeze(2).to(torch::kFloat32)) *
              std::numeric_limits<float>::lowest();
  auto h = embed(b);
  for (long long l = 0; l < shape_.layers; ++l) h = layer("bert.encoder.layer." + std::to_string(l), h, mask);
  auto pooled = torch::tanh(linear("bert.pooler.dense", h.select(1, 0)));
  auto logits = linear("classifier", dropout(pooled));
  return torch::cross_entropy_loss(logits, b.labels);
}

ReferenceStep::ReferenceStep(ReferenceBert& model, runner::Precision precision, double lr,
                             double weight_decay, double max_grad_norm, long long warmup_steps,
                             long long total_steps)
    : model_(model),
      precision_(precision),
      optimizer_(model.param_groups(weight_decay), torch::optim::AdamWOptions(lr)),
      lr_(lr), max_grad_norm_(max_grad_norm), warmup_(warmup_steps), total_(total_steps) {}

// transformers.get_linear_schedule_with_warmup's lr_lambda.
double ReferenceStep::lr_at(long long step) const {
  if (step < warmup_) return lr_ * static_cast<double>(step) / static_cast<double>(std::max(1LL, warmup_));
  return lr_ * std::max(0.0, static_cast<double>(total_ - step) /
                                 static_cast<double>(std::max(1LL, total_ - warmup_)));
}

torch::Tensor ReferenceStep::forward(const runner::ModelBatch& batch) {
  for (auto& group : optimizer_.param_groups())
    static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr_at(step_));
  torch::Tensor loss;
  {
    runner::AutocastGuard autocast(precision_, c10::DeviceType::CPU);
    loss = model_.loss(batch);
  }
  last_loss_ = loss.detach().item<double>();  // Accelerate's loop logs loss.item() too
  return loss;
}

void ReferenceStep::update() {
  if (max_grad_norm_ > 0) {  // torch 1.13's clip_grad_norm_, as Python runs it (no host sync)
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> norms;
    for (const auto& p : model_.parameters()) norms.push_back(torch::norm(p.grad().detach(), 2));
    auto total = torch::norm(torch::stack(norms), 2);
    auto coef = torch::clamp(max_grad_norm_ / (total + 1e-6), c10::nullopt, 1.0);
    for (const auto& p : model_.parameters()) p.grad().detach().mul_(coef);
  }
  optimizer_.step();
  optimizer_.zero_grad();
  ++step_;
}

}  // namespace bench
