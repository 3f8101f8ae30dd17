#include "model/electra.h"

#include "model/encoder_ops.h"
#include "model/lora.h"

namespace runner {
ElectraClassificationHead::ElectraClassificationHead(const BertConfig& c)
    : dropout_p(c.effective_classifier_dropout()) {
  dense = register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
  out_proj = register_module("out_proj", torch::nn::Linear(c.hidden_size, c.num_labels));
}

torch::Tensor ElectraClassificationHead::forward(const torch::Tensor& cls) {
  // The head's GELU is always the erf form, whatever hidden_act says.
  auto x = linear_forward(dense, train_dropout(cls, dropout_p, is_training()));
  x = train_dropout(torch::gelu(x), dropout_p, is_training());
  return linear_forward(out_proj, x);
}

ElectraModel::ElectraModel(const ElectraConfig& c) : Encoder("ElectraModel") {
  // Registration order is Hugging Face's module order, hence its parameter order.
  BertConfig embedding_settings = c.encoder;  // BERT's embeddings at embedding_size
  embedding_settings.hidden_size = c.embedding_size;
  embeddings_ = register_module("embeddings", std::make_shared<BertEmbeddings>(embedding_settings));
  if (c.projects_embeddings())
    embeddings_project_ =
        register_module("embeddings_project", torch::nn::Linear(c.embedding_size, c.encoder.hidden_size));
  auto encoder = register_module("encoder", std::make_shared<torch::nn::Module>("ElectraEncoder"));
  layers_ = encoder->register_module("layer", torch::nn::ModuleList());
  for (long long i = 0; i < c.encoder.num_hidden_layers; ++i) layers_->push_back(std::make_shared<BertLayer>(c.encoder));
}

torch::Tensor ElectraModel::embed(const torch::Tensor& ids, const torch::Tensor& types,
                                  const torch::Tensor& positions) {
  auto h = embeddings_->forward(ids, types, positions);
  if (!embeddings_project_) return h;
  return linear_forward(embeddings_project_, h);
}

torch::Tensor ElectraModel::encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                          std::vector<torch::Tensor>& hidden_states) {
  AttentionInputs a = attention_inputs(b);
  auto positions = torch::arange(a.length, b.input_ids.options()).unsqueeze(0);
  auto h = embed(b.input_ids, b.token_type_ids, positions);
  if (o.output_hidden_states) hidden_states.push_back(h);
  for (const auto& layer : *layers_) {
    h = run_layer([l = layer->as<BertLayer>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
    if (o.output_hidden_states) hidden_states.push_back(h);
  }
  return h;
}

torch::Tensor ElectraModel::encode_unpadded(const ModelBatch& b, const PackedTokens& packed) {
  AttentionInputs a = unpadded_attention_inputs(b, packed);
  auto ids = b.input_ids.reshape({-1}).index_select(0, a.token_index);
  auto types = b.token_type_ids.reshape({-1}).index_select(0, a.token_index);
  auto h = embed(ids, types, a.token_index.remainder(a.length));  // [T, hidden]
  return run_packed_layers<BertLayer>(
      layers_, packed, h,
      [a](BertLayer* l, const torch::Tensor& x, const torch::Tensor& rows) { return l->forward(x, a, rows); });
}

ElectraForSequenceClassification::ElectraForSequenceClassification(ElectraConfig config, Init init)
    : config_(std::move(config)) {
  validate_electra_config(config_, "model config");
  attach_encoder("electra", std::make_shared<ElectraModel>(config_))->keep_first_tokens_only(true);  // [CLS] only
  const bool hf_init = init == Init::HuggingFace;
  if (hf_init) init_weights();  // ElectraModel.__init__ ends with post_init()
  head_ = register_module("classifier", std::make_shared<ElectraClassificationHead>(config_.encoder));
  if (hf_init)
    init_weights({"classifier.dense.weight", "classifier.dense.bias", "classifier.out_proj.weight",
                  "classifier.out_proj.bias"});
}

void ElectraForSequenceClassification::init_weights(const std::vector<std::string>& only) {
  hf_init_leaves(*this, config_.encoder.initializer_range, only);
}

torch::Tensor ElectraForSequenceClassification::head(const EncoderOutput& encoded, ModelOutput& out) {
  out.pooled = encoded.first_tokens();
  return head_->forward(out.pooled);
}

}  // namespace runner
