// ModernBertModel: embeddings, the layers with their masks and rotary tables;
// the sequence head and its pooling, and the init (model/modernbert.h).
#include "model/modernbert.h"

#include "model/autocast_state.h"
#include "model/encoder_ops.h"
#include "model/lora.h"

#include <algorithm>
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

ModernBertModel::ModernBertModel(const ModernBertConfig& c) : Encoder("ModernBertModel", Execution::Padded), config_(c) {
  const int64_t h = config_.hidden_size;
  auto embeddings = register_module("embeddings", std::make_shared<torch::nn::Module>("ModernBertEmbeddings"));
  tok_embeddings_ = embeddings->register_module(
      "tok_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(config_.vocab_size, h).padding_idx(config_.pad_token_id)));
  embeddings_norm_ = embeddings->register_module("norm", std::make_shared<OptionalBiasNorm>(h, config_.norm_eps, config_.norm_bias));
  layers_ = register_module("layers", torch::nn::ModuleList());
  for (long long i = 0; i < config_.num_hidden_layers; ++i) layers_->push_back(std::make_shared<ModernBertLayer>(config_, i == 0));
  final_norm_ = register_module("final_norm", std::make_shared<OptionalBiasNorm>(h, config_.norm_eps, config_.norm_bias));
}

ModernBertPredictionHead::ModernBertPredictionHead(const ModernBertConfig& c)
    : torch::nn::Module("ModernBertPredictionHead"), activation(c.classifier_activation) {
  const int64_t h = c.hidden_size;
  dense = register_module("dense", torch::nn::Linear(torch::nn::LinearOptions(h, h).bias(c.classifier_bias)));
  norm = register_module("norm", std::make_shared<OptionalBiasNorm>(h, c.norm_eps, c.norm_bias));
}

torch::Tensor ModernBertPredictionHead::forward(const torch::Tensor& x) {
  return norm->forward(hf_activation(activation, linear_forward(dense, x)));
}

ModernBertForSequenceClassification::ModernBertForSequenceClassification(ModernBertConfig config, Init init)
    : config_(std::move(config)) {
  validate_modernbert_config(config_, "model config");
  attach_encoder("model", std::make_shared<ModernBertModel>(config_));
  head_ = register_module("head", std::make_shared<ModernBertPredictionHead>(config_));
  classifier_ = register_module("classifier", torch::nn::Linear(config_.hidden_size, config_.labels.num_labels));
  if (init == Init::HuggingFace) init_weights();
}

void ModernBertForSequenceClassification::init_weights(const std::vector<std::string>& only) {
  init_modernbert_weights(*this, config_, only);
}

void init_modernbert_weights(torch::nn::Module& model, const ModernBertConfig& c, const std::vector<std::string>& only) {
  torch::NoGradGuard no_grad;
  const double in = c.initializer_range, cutoff = c.initializer_cutoff_factor;
  const double out = in / std::sqrt(2.0 * static_cast<double>(c.num_hidden_layers));
  for (auto& p : model.named_parameters()) {
    const std::string& name = p.key();
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    torch::Tensor w = p.value();
    const bool is_norm = name.find("norm.") != std::string::npos;
    if (name.size() > 5 && name.substr(name.size() - 5) == ".bias") w.zero_();
    else if (is_norm) w.fill_(1.0);
    else if (name.rfind("classifier.", 0) == 0) truncated_normal(w, std::pow(double(c.hidden_size), -0.5), cutoff);
    else if (name.find(".Wo.") != std::string::npos || name.rfind("head.dense", 0) == 0) truncated_normal(w, out, cutoff);
    else truncated_normal(w, in, cutoff);
  }
}

torch::Tensor ModernBertForSequenceClassification::head(const EncoderOutput& encoded, ModelOutput& out) {
  auto pooled = config_.classifier_pooling == "cls" ? encoded.first_tokens() : encoded.mean_of_tokens();
  out.pooled = head_->forward(pooled);
  auto dropped = train_dropout(out.pooled, config_.classifier_dropout, is_training());
  return linear_forward(classifier_, dropped);
}

torch::Tensor ModernBertModel::encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                             std::vector<torch::Tensor>& hidden_states) {
  auto h = train_dropout(embeddings_norm_->forward(tok_embeddings_(b.input_ids)), config_.embedding_dropout, is_training());
  if (o.output_hidden_states) hidden_states.push_back(h);
  const int64_t length = b.input_ids.size(1);
  auto keys = b.attention_mask.to(torch::kBool).unsqueeze(1).unsqueeze(2);  // [B, 1, 1, L]
  auto positions = torch::arange(length, b.input_ids.options());
  auto near = (positions.unsqueeze(1) - positions.unsqueeze(0)).abs() <= static_cast<int64_t>(config_.local_attention / 2);
  const auto dtype = h.scalar_type();
  ModernBertAttentionInputs global, local;
  global.mask = additive(keys.expand({-1, 1, length, length}), dtype);
  local.mask = additive(keys & near.unsqueeze(0).unsqueeze(0), dtype);
  std::tie(global.cos, global.sin) = rotary_tables(length, config_.head_dim(), config_.global_rope_theta, h.device());
  std::tie(local.cos, local.sin) = rotary_tables(length, config_.head_dim(), config_.local_rope_theta, h.device());
  for (size_t i = 0; i < layers_->size(); ++i) {
    auto layer = layers_[i]->as<ModernBertLayer>();
    const ModernBertAttentionInputs& a = config_.global_layers[i] ? global : local;
    h = run_layer([layer, a](const torch::Tensor& x) { return layer->forward(x, a); }, h);
    if (o.output_hidden_states) hidden_states.push_back(h);
  }
  return final_norm_->forward(h);
}

// Every op on the real tokens [T, H]: the rotary tables are read at each
// token's column.
torch::Tensor ModernBertModel::encode_unpadded(const ModelBatch& b, const PackedTokens& packed) {
  const int64_t batch = b.input_ids.size(0), length = b.input_ids.size(1);
  auto ids = b.input_ids.reshape({-1}).index_select(0, packed.token_index);
  auto h = train_dropout(embeddings_norm_->forward(tok_embeddings_(ids)), config_.embedding_dropout, is_training());
  ModernBertAttentionInputs global, local;
  global.sequences = local.sequences = packed_sequences(packed.token_index, batch, length);
  local.window = static_cast<int64_t>(config_.local_attention / 2);
  const auto columns = global.sequences->columns.to(h.device());
  auto at_columns = [&](std::pair<torch::Tensor, torch::Tensor> tables, ModernBertAttentionInputs& a) {
    a.cos = tables.first.index_select(0, columns);
    a.sin = tables.second.index_select(0, columns);
  };
  at_columns(rotary_tables(length, config_.head_dim(), config_.global_rope_theta, h.device()), global);
  at_columns(rotary_tables(length, config_.head_dim(), config_.local_rope_theta, h.device()), local);
  for (size_t i = 0; i < layers_->size(); ++i) {
    auto layer = layers_[i]->as<ModernBertLayer>();
    const ModernBertAttentionInputs& a = config_.global_layers[i] ? global : local;
    h = run_layer([layer, a](const torch::Tensor& x) { return layer->forward(x, a); }, h);
  }
  return final_norm_->forward(h);
}

bool ModernBertModel::runs_packed(const ModelBatch& b, const ForwardOptions& o) const {
  if (!runs_unpadded(execution(), b, o)) return false;
  const auto device = b.input_ids.device();
  const auto dtype = autocast_enabled(device.type()) ? autocast_dtype(device.type()) : tok_embeddings_->weight.scalar_type();
  // A probe of the projections' shape: the GPU's kernels ask for the head size,
  // and for a window when a layer is local.
  const auto probe = torch::empty({0, 3 * config_.hidden_size}, torch::TensorOptions().dtype(dtype).device(device));
  PackedAttentionSpec spec{config_.num_attention_heads, ScoreScaling::TimesInverseRoot, config_.attention_dropout,
                           is_training()};
  const bool any_local = std::count(config_.global_layers.begin(), config_.global_layers.end(), false) > 0;
  if (any_local) spec.window = static_cast<int64_t>(config_.local_attention / 2);
  return packed_attention_applies(probe, spec);
}

}  // namespace runner
