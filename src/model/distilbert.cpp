#include "model/batched_matmul.h"
#include "model/distilbert.h"

#include "model/encoder_ops.h"
#include "model/lora.h"

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

torch::nn::LayerNorm make_layer_norm(const DistilBertConfig& c) {
  return torch::nn::LayerNorm(
      torch::nn::LayerNormOptions({c.dim}).eps(kDistilBertLayerNormEps).elementwise_affine(true));
}

// aten::linear as Python's F.linear calls it (the C++ Linear module splits
// matmul and bias on 3-D inputs, which rounds differently under autocast).
torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return linear_forward(layer, x);
}

}  // namespace

DistilBertEmbeddings::DistilBertEmbeddings(const DistilBertConfig& c) : dropout_p(c.dropout) {
  word_embeddings = register_module(
      "word_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(c.vocab_size, c.dim).padding_idx(c.pad_token_id)));
  position_embeddings = register_module("position_embeddings",
                                        torch::nn::Embedding(c.max_position_embeddings, c.dim));
  layer_norm = register_module("LayerNorm", make_layer_norm(c));
}

torch::Tensor DistilBertEmbeddings::forward(const torch::Tensor& input_ids,
                                            const torch::Tensor& position_ids) {
  auto x = word_embeddings(input_ids) + position_embeddings(position_ids);
  return train_dropout(layer_norm(x), dropout_p, is_training());
}

void DistilBertEmbeddings::fill_sinusoidal_positions() {
  torch::NoGradGuard no_grad;
  auto& table = position_embeddings->weight;
  const int64_t positions = table.size(0), dim = table.size(1);
  auto values = torch::empty({positions, dim}, torch::kFloat32);
  auto v = values.accessor<float, 2>();
  // Computed in double and rounded once, as transformers does with numpy.
  for (int64_t pos = 0; pos < positions; ++pos)
    for (int64_t j = 0; j < dim; ++j) {
      double angle = static_cast<double>(pos) /
                     std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / static_cast<double>(dim));
      v[pos][j] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  table.copy_(values);
  table.set_requires_grad(false);
}

DistilBertSelfAttention::DistilBertSelfAttention(const DistilBertConfig& c)
    : heads(c.n_heads), head_dim(c.head_dim()), dropout_p(c.attention_dropout) {
  q_lin = register_module("q_lin", torch::nn::Linear(c.dim, c.dim));
  k_lin = register_module("k_lin", torch::nn::Linear(c.dim, c.dim));
  v_lin = register_module("v_lin", torch::nn::Linear(c.dim, c.dim));
  out_lin = register_module("out_lin", torch::nn::Linear(c.dim, c.dim));
}

torch::Tensor DistilBertSelfAttention::attend(const torch::Tensor& q, const torch::Tensor& k,
                                              const torch::Tensor& v, const torch::Tensor& padding) {
  // DistilBERT scales q before the product and fills (not adds) the mask.
  auto scores = batched_matmul(q / std::sqrt(static_cast<double>(head_dim)), k.transpose(2, 3));
  scores = scores.masked_fill(padding, lowest_value(scores.scalar_type()));
  auto weights = train_dropout(torch::softmax(scores, -1), dropout_p, is_training());
  return batched_matmul(weights, v);
}

torch::Tensor DistilBertSelfAttention::forward(const torch::Tensor& x, const DistilBertAttentionInputs& a,
                                               const torch::Tensor& rows) {
  if (a.token_index.defined()) return forward_unpadded(x, a, rows);
  auto split = [&](const torch::Tensor& t) {  // [B, L, dim] -> [B, heads, L, d]
    return t.view({a.batch, -1, heads, head_dim}).transpose(1, 2);
  };
  auto q = split(linear(q_lin, x));
  auto k = split(linear(k_lin, x));
  auto v = split(linear(v_lin, x));
  auto context = attend(q, k, v, a.padding);
  return linear(out_lin, context.transpose(1, 2).contiguous().view({a.batch, -1, heads * head_dim}));
}

DistilBertFfn::DistilBertFfn(const DistilBertConfig& c) : activation(c.activation), dropout_p(c.dropout) {
  lin1 = register_module("lin1", torch::nn::Linear(c.dim, c.hidden_dim));
  lin2 = register_module("lin2", torch::nn::Linear(c.hidden_dim, c.dim));
}

torch::Tensor DistilBertFfn::forward(const torch::Tensor& x, const torch::Tensor& rows) {
  return train_dropout(linear(lin2, hf_activation(activation, linear(lin1, x))), dropout_p, is_training(), rows);
}

DistilBertBlock::DistilBertBlock(const DistilBertConfig& c) {
  attention = register_module("attention", std::make_shared<DistilBertSelfAttention>(c));
  sa_layer_norm = register_module("sa_layer_norm", make_layer_norm(c));
  ffn = register_module("ffn", std::make_shared<DistilBertFfn>(c));
  output_layer_norm = register_module("output_layer_norm", make_layer_norm(c));
}

torch::Tensor DistilBertBlock::forward(const torch::Tensor& x, const DistilBertAttentionInputs& a,
                                       const torch::Tensor& rows) {
  auto h = sa_layer_norm(attention->forward(x, a, rows) + kept_rows_of(x, rows));
  return output_layer_norm(ffn->forward(h, rows) + h);
}

DistilBertModel::DistilBertModel(const DistilBertConfig& c) : Encoder("DistilBertModel") {
  // Registration order is Hugging Face's module order, hence its parameter order.
  embeddings_ = register_module("embeddings", std::make_shared<DistilBertEmbeddings>(c));
  auto transformer = register_module("transformer", std::make_shared<torch::nn::Module>("Transformer"));
  layers_ = transformer->register_module("layer", torch::nn::ModuleList());
  for (long long i = 0; i < c.n_layers; ++i) layers_->push_back(std::make_shared<DistilBertBlock>(c));
}

DistilBertAttentionInputs DistilBertModel::attention_inputs(const ModelBatch& b) const {
  DistilBertAttentionInputs a;
  a.batch = b.input_ids.size(0);
  a.length = b.input_ids.size(1);
  a.padding = b.attention_mask.eq(0).view({a.batch, 1, 1, a.length});
  return a;
}

torch::Tensor DistilBertModel::encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                             std::vector<torch::Tensor>& hidden_states) {
  DistilBertAttentionInputs a = attention_inputs(b);
  auto positions = torch::arange(a.length, b.input_ids.options()).unsqueeze(0);
  auto h = embeddings_->forward(b.input_ids, positions);
  if (o.output_hidden_states) hidden_states.push_back(h);
  for (const auto& layer : *layers_) {
    h = run_layer([l = layer->as<DistilBertBlock>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
    if (o.output_hidden_states) hidden_states.push_back(h);
  }
  return h;
}

void init_distilbert_weights(torch::nn::Module& model, DistilBertModel& encoder, const DistilBertConfig& c,
                             const std::vector<std::string>& only) {
  hf_init_leaves(model, c.initializer_range, only);
  const std::string positions = "distilbert.embeddings.position_embeddings.weight";
  if (c.sinusoidal_pos_embds && (only.empty() || std::find(only.begin(), only.end(), positions) != only.end()))
    encoder.embeddings()->fill_sinusoidal_positions();
}

DistilBertForSequenceClassification::DistilBertForSequenceClassification(DistilBertConfig config, Init init)
    : config_(std::move(config)) {
  validate_distilbert_config(config_, "model config");
  distilbert_ = attach_encoder("distilbert", std::make_shared<DistilBertModel>(config_));
  distilbert_->keep_first_tokens_only(true);  // the head reads [CLS] only
  const bool hf_init = init == Init::HuggingFace;
  if (hf_init) init_weights();  // DistilBertModel.__init__ ends with post_init()
  pre_classifier_ = register_module("pre_classifier", torch::nn::Linear(config_.dim, config_.dim));
  classifier_ = register_module("classifier", torch::nn::Linear(config_.dim, config_.labels.num_labels));
  if (hf_init)
    init_weights({"pre_classifier.weight", "pre_classifier.bias", "classifier.weight", "classifier.bias"});
}

void DistilBertForSequenceClassification::init_weights(const std::vector<std::string>& only) {
  init_distilbert_weights(*this, *distilbert_, config_, only);
}

torch::Tensor DistilBertForSequenceClassification::head(const EncoderOutput& encoded, ModelOutput& out) {
  out.pooled = encoded.first_tokens();
  auto h = torch::relu(linear(pre_classifier_, out.pooled));
  return linear(classifier_, train_dropout(h, config_.seq_classif_dropout, is_training()));
}

}  // namespace runner
