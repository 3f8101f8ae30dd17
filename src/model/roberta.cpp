#include "model/roberta.h"

#include "model/dense.h"
#include "model/encoder_ops.h"
#include "model/roberta_config.h"

namespace runner {

RobertaClassificationHead::RobertaClassificationHead(const BertConfig& c)
    : dropout_p(c.effective_classifier_dropout()) {
  dense = register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
  out_proj = register_module("out_proj", torch::nn::Linear(c.hidden_size, c.num_labels));
}

torch::Tensor RobertaClassificationHead::forward(const torch::Tensor& first_token) {
  auto x = runner::dense(train_dropout(first_token, dropout_p, is_training()), dense->weight, dense->bias);
  x = train_dropout(torch::tanh(x), dropout_p, is_training());
  return runner::dense(x, out_proj->weight, out_proj->bias);
}

torch::Tensor roberta_position_ids(const torch::Tensor& input_ids, long long pad_token_id) {
  const auto pad = static_cast<int64_t>(pad_token_id);
  auto real = input_ids.ne(pad).to(torch::kInt64);
  return torch::cumsum(real, 1) * real + pad;
}

RobertaForSequenceClassification::RobertaForSequenceClassification(BertConfig config, Init init)
    : config_(std::move(config)) {
  validate_roberta_config(config_, "model config");
  // Registration order is Hugging Face's module order, hence its parameter order.
  auto base = register_module("roberta", std::make_shared<torch::nn::Module>("RobertaModel"));
  embeddings_ = base->register_module("embeddings", std::make_shared<BertEmbeddings>(config_));
  // RoBERTa's position table has a padding row too (zeroed at init, never trained).
  embeddings_->position_embeddings = embeddings_->replace_module(
      "position_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(config_.max_position_embeddings, config_.hidden_size)
                               .padding_idx(config_.pad_token_id)));
  auto encoder = base->register_module("encoder", std::make_shared<torch::nn::Module>("RobertaEncoder"));
  layers_ = encoder->register_module("layer", torch::nn::ModuleList());
  for (long long i = 0; i < config_.num_hidden_layers; ++i) layers_->push_back(std::make_shared<BertLayer>(config_));
  head_ = register_module("classifier", std::make_shared<RobertaClassificationHead>(config_));
  if (init == Init::HuggingFace) init_weights();
}

nlohmann::json RobertaForSequenceClassification::hf_config() const { return roberta_config_to_json(config_); }

void RobertaForSequenceClassification::init_weights(const std::vector<std::string>& only) {
  hf_init_leaves(*this, config_.initializer_range, only);
}

torch::Tensor RobertaForSequenceClassification::encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                                              ModelOutput& out) {
  AttentionInputs a = attention_inputs(b);
  auto h = embeddings_->forward(b.input_ids, torch::zeros_like(b.input_ids),
                                roberta_position_ids(b.input_ids, config_.pad_token_id));
  if (o.output_hidden_states) out.hidden_states.push_back(h);
  for (const auto& layer : *layers_) {
    h = run_layer([l = layer->as<BertLayer>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
    if (o.output_hidden_states) out.hidden_states.push_back(h);
  }
  return h.select(1, 0);
}

torch::Tensor RobertaForSequenceClassification::encode_unpadded(const ModelBatch& b) {
  PackedTokens packed = packed_tokens(b);
  AttentionInputs a = unpadded_attention_inputs(b, packed);
  auto ids = b.input_ids.reshape({-1}).index_select(0, a.token_index);
  auto positions =
      roberta_position_ids(b.input_ids, config_.pad_token_id).reshape({-1}).index_select(0, a.token_index);
  auto h = embeddings_->forward(ids, torch::zeros_like(ids), positions);  // [T, hidden]
  for (const auto& layer : *layers_)
    h = run_layer([l = layer->as<BertLayer>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
  return h.index_select(0, packed.first_token);
}

ModelOutput RobertaForSequenceClassification::forward(const ModelBatch& b, const ForwardOptions& o) {
  ModelOutput out;
  out.pooled = runs_unpadded(execution_, b, o) ? encode_unpadded(b) : encode_padded(b, o, out);
  out.logits = head_->forward(out.pooled);
  if (b.labels.defined())
    out.loss = sequence_classification_loss(out.logits, b.labels, config_.num_labels, config_.problem_type,
                                            o.label_smoothing, o.class_weights);
  return out;
}

}  // namespace runner
