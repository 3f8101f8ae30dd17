#include "model/roberta.h"

#include "model/encoder_ops.h"
#include "model/lora.h"
#include "model/roberta_config.h"

namespace runner {

RobertaClassificationHead::RobertaClassificationHead(const BertConfig& c)
    : dropout_p(c.effective_classifier_dropout()) {
  dense = register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
  out_proj = register_module("out_proj", torch::nn::Linear(c.hidden_size, c.num_labels));
}

torch::Tensor RobertaClassificationHead::forward(const torch::Tensor& first_token) {
  auto x = linear_forward(dense, train_dropout(first_token, dropout_p, is_training()));
  x = train_dropout(torch::tanh(x), dropout_p, is_training());
  return linear_forward(out_proj, x);
}

torch::Tensor roberta_position_ids(const torch::Tensor& input_ids, long long pad_token_id) {
  const auto pad = static_cast<int64_t>(pad_token_id);
  auto real = input_ids.ne(pad).to(torch::kInt64);
  return torch::cumsum(real, 1) * real + pad;
}

RobertaModel::RobertaModel(const BertConfig& c) : Encoder("RobertaModel"), pad_token_id_(c.pad_token_id) {
  // Registration order is Hugging Face's module order, hence its parameter order.
  embeddings_ = register_module("embeddings", std::make_shared<BertEmbeddings>(c));
  // RoBERTa's position table has a padding row too (zeroed at init, never trained).
  embeddings_->position_embeddings = embeddings_->replace_module(
      "position_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(c.max_position_embeddings, c.hidden_size)
                               .padding_idx(c.pad_token_id)));
  auto encoder = register_module("encoder", std::make_shared<torch::nn::Module>("RobertaEncoder"));
  layers_ = encoder->register_module("layer", torch::nn::ModuleList());
  for (long long i = 0; i < c.num_hidden_layers; ++i) layers_->push_back(std::make_shared<BertLayer>(c));
}

torch::Tensor RobertaModel::encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                          std::vector<torch::Tensor>& hidden_states) {
  AttentionInputs a = attention_inputs(b);
  auto h = embeddings_->forward(b.input_ids, torch::zeros_like(b.input_ids),
                                roberta_position_ids(b.input_ids, pad_token_id_));
  if (o.output_hidden_states) hidden_states.push_back(h);
  for (const auto& layer : *layers_) {
    h = run_layer([l = layer->as<BertLayer>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
    if (o.output_hidden_states) hidden_states.push_back(h);
  }
  return h;
}

torch::Tensor RobertaModel::encode_unpadded(const ModelBatch& b, const PackedTokens& packed) {
  AttentionInputs a = unpadded_attention_inputs(b, packed);
  auto ids = b.input_ids.reshape({-1}).index_select(0, a.token_index);
  auto positions = roberta_position_ids(b.input_ids, pad_token_id_).reshape({-1}).index_select(0, a.token_index);
  auto h = embeddings_->forward(ids, torch::zeros_like(ids), positions);  // [T, hidden]
  return run_packed_layers<BertLayer>(
      layers_, packed, h,
      [a](BertLayer* l, const torch::Tensor& x, const torch::Tensor& rows) { return l->forward(x, a, rows); });
}

RobertaForSequenceClassification::RobertaForSequenceClassification(BertConfig config, Init init)
    : config_(std::move(config)) {
  validate_roberta_config(config_, "model config");
  attach_encoder("roberta", std::make_shared<RobertaModel>(config_))->keep_first_tokens_only(true);  // <s> only
  head_ = register_module("classifier", std::make_shared<RobertaClassificationHead>(config_));
  if (init == Init::HuggingFace) init_weights();
}

nlohmann::json RobertaForSequenceClassification::hf_config() const { return roberta_config_to_json(config_); }

void RobertaForSequenceClassification::init_weights(const std::vector<std::string>& only) {
  hf_init_leaves(*this, config_.initializer_range, only);
}

torch::Tensor RobertaForSequenceClassification::head(const EncoderOutput& encoded, ModelOutput& out) {
  out.pooled = encoded.first_tokens();
  return head_->forward(out.pooled);
}

}  // namespace runner
