// ModernBertForSequenceClassification: embeddings, the layers with their masks
// and rotary tables, the head and its pooling, and the init (model/modernbert.h).
#include "model/modernbert.h"

#include "model/encoder_ops.h"

#include <cmath>
#include <limits>

namespace runner {
namespace {

// Additive masks [B, 1, L, L]: padded keys hidden, and for the local layers
// also keys farther than local_attention / 2 from the query.
torch::Tensor additive(const torch::Tensor& allowed, torch::ScalarType dtype) {
  auto zeros = torch::zeros(allowed.sizes(), torch::TensorOptions().dtype(dtype).device(allowed.device()));
  return zeros.masked_fill(allowed.logical_not(), lowest_value(dtype));
}

// PyTorch's trunc_normal_: inverse-CDF sampling on [-cutoff std, +cutoff std].
void truncated_normal(torch::Tensor w, double std_dev, double cutoff) {
  auto cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double lo = cdf(-cutoff), hi = cdf(cutoff);
  w.uniform_(2 * lo - 1, 2 * hi - 1).erfinv_().mul_(std_dev * std::sqrt(2.0)).clamp_(-cutoff * std_dev, cutoff * std_dev);
}

}  // namespace

ModernBertForSequenceClassification::ModernBertForSequenceClassification(ModernBertConfig config, Init init)
    : config_(std::move(config)) {
  validate_modernbert_config(config_, "model config");
  const int64_t h = config_.hidden_size;
  auto model = register_module("model", std::make_shared<torch::nn::Module>("ModernBertModel"));
  auto embeddings = model->register_module("embeddings", std::make_shared<torch::nn::Module>("ModernBertEmbeddings"));
  tok_embeddings_ = embeddings->register_module(
      "tok_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(config_.vocab_size, h).padding_idx(config_.pad_token_id)));
  embeddings_norm_ = embeddings->register_module("norm", std::make_shared<OptionalBiasNorm>(h, config_.norm_eps, config_.norm_bias));
  layers_ = model->register_module("layers", torch::nn::ModuleList());
  for (long long i = 0; i < config_.num_hidden_layers; ++i) layers_->push_back(std::make_shared<ModernBertLayer>(config_, i == 0));
  final_norm_ = model->register_module("final_norm", std::make_shared<OptionalBiasNorm>(h, config_.norm_eps, config_.norm_bias));
  auto head = register_module("head", std::make_shared<torch::nn::Module>("ModernBertPredictionHead"));
  head_dense_ = head->register_module("dense", torch::nn::Linear(torch::nn::LinearOptions(h, h).bias(config_.classifier_bias)));
  head_norm_ = head->register_module("norm", std::make_shared<OptionalBiasNorm>(h, config_.norm_eps, config_.norm_bias));
  classifier_ = register_module("classifier", torch::nn::Linear(h, config_.labels.num_labels));
  if (init == Init::HuggingFace) init_weights();
}

void ModernBertForSequenceClassification::init_weights(const std::vector<std::string>& only) {
  torch::NoGradGuard no_grad;
  const double in = config_.initializer_range, cutoff = config_.initializer_cutoff_factor;
  const double out = in / std::sqrt(2.0 * static_cast<double>(config_.num_hidden_layers));
  for (auto& p : named_parameters()) {
    const std::string& name = p.key();
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    torch::Tensor w = p.value();
    const bool is_norm = name.find("norm.") != std::string::npos;
    if (name.size() > 5 && name.substr(name.size() - 5) == ".bias") w.zero_();
    else if (is_norm) w.fill_(1.0);
    else if (name.rfind("classifier.", 0) == 0) truncated_normal(w, std::pow(double(config_.hidden_size), -0.5), cutoff);
    else if (name.find(".Wo.") != std::string::npos || name.rfind("head.dense", 0) == 0) truncated_normal(w, out, cutoff);
    else truncated_normal(w, in, cutoff);
  }
}

torch::Tensor ModernBertForSequenceClassification::pool(const torch::Tensor& h, const torch::Tensor& attention_mask) const {
  if (config_.classifier_pooling == "cls") return h.select(1, 0);
  auto m = attention_mask.unsqueeze(-1).to(h.scalar_type());
  return (h * m).sum(1) / attention_mask.sum(1, true).to(h.scalar_type());
}

ModelOutput ModernBertForSequenceClassification::forward(const ModelBatch& b, const ForwardOptions& o) {
  ModelOutput out;
  auto h = train_dropout(embeddings_norm_->forward(tok_embeddings_(b.input_ids)), config_.embedding_dropout, is_training());
  if (o.output_hidden_states) out.hidden_states.push_back(h);
  const int64_t length = b.input_ids.size(1);
  auto keys = b.attention_mask.to(torch::kBool).unsqueeze(1).unsqueeze(2);  // [B, 1, 1, L]
  auto positions = torch::arange(length, b.input_ids.options());
  auto near = (positions.unsqueeze(1) - positions.unsqueeze(0)).abs() <= static_cast<int64_t>(config_.local_attention / 2);
  const auto dtype = h.scalar_type();
  const torch::Tensor global_mask = additive(keys.expand({-1, 1, length, length}), dtype);
  const torch::Tensor local_mask = additive(keys & near.unsqueeze(0).unsqueeze(0), dtype);
  const auto [global_cos, global_sin] = rotary_tables(length, config_.head_dim(), config_.global_rope_theta, h.device());
  const auto [local_cos, local_sin] = rotary_tables(length, config_.head_dim(), config_.local_rope_theta, h.device());
  for (size_t i = 0; i < layers_->size(); ++i) {
    const bool global = config_.global_layers[i];
    auto layer = layers_[i]->as<ModernBertLayer>();
    torch::Tensor mask = global ? global_mask : local_mask, cos = global ? global_cos : local_cos,
                  sin = global ? global_sin : local_sin;
    h = run_layer([layer, mask, cos, sin](const torch::Tensor& x) { return layer->forward(x, mask, cos, sin); }, h);
    if (o.output_hidden_states) out.hidden_states.push_back(h);
  }
  h = final_norm_->forward(h);
  auto pooled = pool(h, b.attention_mask);
  out.pooled = head_norm_->forward(hf_activation(config_.classifier_activation,
                                                 torch::linear(pooled, head_dense_->weight, head_dense_->bias)));
  auto dropped = train_dropout(out.pooled, config_.classifier_dropout, is_training());
  out.logits = torch::linear(dropped, classifier_->weight, classifier_->bias);
  if (b.labels.defined())
    out.loss = sequence_classification_loss(out.logits, b.labels, config_.labels.num_labels,
                                            config_.labels.problem_type, o.label_smoothing, o.class_weights);
  return out;
}

}  // namespace runner
