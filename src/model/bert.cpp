#include "model/bert.h"

#include "model/batched_matmul.h"
#include "model/encoder_ops.h"
#include "model/lora.h"

#include <torch/version.h>

#include <algorithm>

#include <limits>

namespace runner {
namespace {

torch::nn::LayerNorm make_layer_norm(const BertConfig& c) {
  return torch::nn::LayerNorm(
      torch::nn::LayerNormOptions({c.hidden_size}).eps(c.layer_norm_eps).elementwise_affine(true));
}

// aten::linear's product (model/dense.h), the op Python's F.linear calls. The C++ torch::nn::Linear module
// instead adds the bias after a matmul on 3-D inputs, which under bf16 autocast
// rounds twice and moved the logits by up to 0.05 from Hugging Face's.
torch::Tensor apply_linear(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return linear_forward(layer, x);
}

}  // namespace

torch::Tensor additive_attention_mask(const torch::Tensor& attention_mask) {
  auto m = attention_mask.unsqueeze(1).unsqueeze(2).to(torch::kFloat32);
  return (1.0 - m) * std::numeric_limits<float>::lowest();
}

AttentionInputs attention_inputs(const ModelBatch& b) {
  AttentionInputs a;
  a.batch = b.input_ids.size(0);
  a.length = b.input_ids.size(1);
  a.additive_mask = additive_attention_mask(b.attention_mask);
  return a;
}

AttentionInputs unpadded_attention_inputs(const ModelBatch& b, const PackedTokens& packed) {
  AttentionInputs a = attention_inputs(b);
  a.token_index = packed.token_index;
  a.sequences = packed_sequences(a.token_index, a.batch, a.length);
  return a;
}

BertEmbeddings::BertEmbeddings(const BertConfig& c) : dropout_p(c.hidden_dropout_prob) {
  word_embeddings = register_module(
      "word_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(c.vocab_size, c.hidden_size)
                               .padding_idx(c.pad_token_id)));
  position_embeddings = register_module(
      "position_embeddings", torch::nn::Embedding(c.max_position_embeddings, c.hidden_size));
  token_type_embeddings = register_module(
      "token_type_embeddings", torch::nn::Embedding(c.type_vocab_size, c.hidden_size));
  layer_norm = register_module("LayerNorm", make_layer_norm(c));
}

torch::Tensor BertEmbeddings::forward(const torch::Tensor& input_ids,
                                      const torch::Tensor& token_type_ids,
                                      const torch::Tensor& position_ids) {
  auto x = word_embeddings(input_ids) + token_type_embeddings(token_type_ids);
  x = x + position_embeddings(position_ids);
  return train_dropout(layer_norm(x), dropout_p, is_training());
}

BertSelfAttention::BertSelfAttention(const BertConfig& c)
    : heads(c.num_attention_heads), head_dim(c.head_dim()),
      dropout_p(c.attention_probs_dropout_prob) {
  query = register_module("query", torch::nn::Linear(c.hidden_size, c.hidden_size));
  key = register_module("key", torch::nn::Linear(c.hidden_size, c.hidden_size));
  value = register_module("value", torch::nn::Linear(c.hidden_size, c.hidden_size));
}

// q, k, v: [B, heads, L, head_dim]; returns the context [B, heads, L, head_dim].
// LibTorch 2.x's fused attention where it is fused: on CUDA, and on a CPU where no
// dropout is drawn. A CPU kernel cannot draw attention dropout, so in training
// LibTorch falls back to its math path (a bernoulli_ mask over every score, a
// row check of its safe softmax) that costs more than this eager path with the
// runner's own dropout (docs/dev/performance.md: the step on
// LibTorch 2.11 against 1.13, bench/step_bench --profile).
torch::Tensor BertSelfAttention::attend(const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v, const torch::Tensor& mask) {
#if TORCH_VERSION_MAJOR >= 2
  const double dropout = is_training() ? dropout_p : 0.0;
  if (!q.device().is_cpu() || dropout <= 0.0)
    return at::scaled_dot_product_attention(q, k, v, mask, dropout);
#endif
  // Hugging Face's eager path, op for op: matmul, divide by sqrt(d), add mask, softmax.
  auto scores = batched_matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(head_dim));
  auto probs = torch::softmax(scores + mask, -1);
  return batched_matmul(train_dropout(probs, dropout_p, is_training()), v);
}

torch::Tensor BertSelfAttention::forward(const torch::Tensor& hidden, const AttentionInputs& a) {
  if (a.token_index.defined()) return forward_unpadded(hidden, a);
  auto split = [&](const torch::Tensor& x) {  // [B, L, H] -> [B, heads, L, d]
    return x.view({a.batch, a.length, heads, head_dim}).permute({0, 2, 1, 3});
  };
  auto q = apply_linear(query, hidden);  // Hugging Face projects the query first, then key and value
  auto k = split(apply_linear(key, hidden)), v = split(apply_linear(value, hidden));
  auto context = attend(split(q), k, v, a.additive_mask);
  return context.permute({0, 2, 1, 3}).contiguous().view({a.batch, a.length, heads * head_dim});
}

BertResidualOutput::BertResidualOutput(int64_t in, const BertConfig& c)
    : dropout_p(c.hidden_dropout_prob) {
  dense = register_module("dense", torch::nn::Linear(in, c.hidden_size));
  layer_norm = register_module("LayerNorm", make_layer_norm(c));
}

torch::Tensor BertResidualOutput::forward(const torch::Tensor& x, const torch::Tensor& residual,
                                          const torch::Tensor& rows) {
  return layer_norm(train_dropout(apply_linear(dense, x), dropout_p, is_training(), rows) + residual);
}

BertAttention::BertAttention(const BertConfig& c) {
  self = register_module("self", std::make_shared<BertSelfAttention>(c));
  output = register_module("output", std::make_shared<BertResidualOutput>(c.hidden_size, c));
}

torch::Tensor BertAttention::forward(const torch::Tensor& hidden, const AttentionInputs& a, const torch::Tensor& rows) {
  return output->forward(kept_rows_of(self->forward(hidden, a), rows), kept_rows_of(hidden, rows), rows);
}

BertIntermediate::BertIntermediate(const BertConfig& c) : act(c.hidden_act) {
  dense = register_module("dense", torch::nn::Linear(c.hidden_size, c.intermediate_size));
}

torch::Tensor BertIntermediate::forward(const torch::Tensor& x) {
  return hf_activation(act, apply_linear(dense, x));
}

BertLayer::BertLayer(const BertConfig& c) {
  attention = register_module("attention", std::make_shared<BertAttention>(c));
  intermediate = register_module("intermediate", std::make_shared<BertIntermediate>(c));
  output = register_module("output", std::make_shared<BertResidualOutput>(c.intermediate_size, c));
}

torch::Tensor BertLayer::forward(const torch::Tensor& hidden, const AttentionInputs& a, const torch::Tensor& rows) {
  auto attended = attention->forward(hidden, a, rows);
  return output->forward(intermediate->forward(attended), attended, rows);
}

BertModel::BertModel(const BertConfig& c, bool with_pooler) : Encoder("BertModel") {
  // Registration order is Hugging Face's module order, hence its parameter order.
  embeddings_ = register_module("embeddings", std::make_shared<BertEmbeddings>(c));
  auto encoder = register_module("encoder", std::make_shared<torch::nn::Module>("BertEncoder"));
  layers_ = encoder->register_module("layer", torch::nn::ModuleList());
  for (long long i = 0; i < c.num_hidden_layers; ++i) layers_->push_back(std::make_shared<BertLayer>(c));
  if (!with_pooler) return;
  auto pooler = register_module("pooler", std::make_shared<torch::nn::Module>("BertPooler"));
  pooler_ = pooler->register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
}

torch::Tensor BertModel::pool(const torch::Tensor& first_tokens) {
  return torch::tanh(apply_linear(pooler_, first_tokens));
}

torch::Tensor BertModel::encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                       std::vector<torch::Tensor>& hidden_states) {
  AttentionInputs a = attention_inputs(b);
  auto positions = torch::arange(a.length, b.input_ids.options()).unsqueeze(0);
  auto h = embeddings_->forward(b.input_ids, b.token_type_ids, positions);
  if (o.output_hidden_states) hidden_states.push_back(h);
  for (const auto& layer : *layers_) {
    h = run_layer([l = layer->as<BertLayer>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
    if (o.output_hidden_states) hidden_states.push_back(h);
  }
  return h;
}

void init_bert_weights(torch::nn::Module& model, const BertConfig& c, const std::string& word_embeddings,
                       const std::vector<std::string>& only) {
  torch::NoGradGuard no_grad;
  auto wanted = [&](const std::string& name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (auto& p : model.named_parameters()) {
    if (!wanted(p.key())) continue;
    if (ends_with(p.key(), "LayerNorm.weight")) p.value().fill_(1.0);
    else if (ends_with(p.key(), ".bias")) p.value().zero_();
    else p.value().normal_(0.0, c.initializer_range);
    if (p.key() == word_embeddings) p.value()[c.pad_token_id].zero_();
  }
}

BertForSequenceClassification::BertForSequenceClassification(BertConfig config, Init init)
    : config_(std::move(config)) {
  validate_bert_config(config_, "model config");
  bert_ = attach_encoder("bert", std::make_shared<BertModel>(config_, /*with_pooler=*/true));
  bert_->keep_first_tokens_only(true);  // the pooler reads [CLS] only
  const bool hf_init = init == Init::HuggingFace;
  if (hf_init) init_weights();  // BertModel.__init__ ends with post_init()
  classifier_ = register_module("classifier", torch::nn::Linear(config_.hidden_size, config_.num_labels));
  if (hf_init) init_weights({"classifier.weight", "classifier.bias"});
}

void BertForSequenceClassification::init_weights(const std::vector<std::string>& only) {
  init_bert_weights(*this, config_, "bert.embeddings.word_embeddings.weight", only);
}

torch::Tensor BertForSequenceClassification::head(const EncoderOutput& encoded, ModelOutput& out) {
  out.pooled = bert_->pool(encoded.first_tokens());
  auto dropped = train_dropout(out.pooled, config_.effective_classifier_dropout(), is_training());
  return apply_linear(classifier_, dropped);
}

}  // namespace runner
