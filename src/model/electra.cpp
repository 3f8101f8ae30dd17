#include "model/electra.h"

#include "model/dense.h"
#include "model/encoder_ops.h"

namespace runner {
ElectraClassificationHead::ElectraClassificationHead(const BertConfig& c)
    : dropout_p(c.effective_classifier_dropout()) {
  dense = register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
  out_proj = register_module("out_proj", torch::nn::Linear(c.hidden_size, c.num_labels));
}

torch::Tensor ElectraClassificationHead::forward(const torch::Tensor& cls) {
  // The head's GELU is always the erf form, whatever hidden_act says.
  auto x = runner::dense(train_dropout(cls, dropout_p, is_training()), dense->weight, dense->bias);
  x = train_dropout(torch::gelu(x), dropout_p, is_training());
  return runner::dense(x, out_proj->weight, out_proj->bias);
}

ElectraForSequenceClassification::ElectraForSequenceClassification(ElectraConfig config, Init init)
    : config_(std::move(config)) {
  validate_electra_config(config_, "model config");
  // Registration order is Hugging Face's module order, hence its parameter order.
  auto base = register_module("electra", std::make_shared<torch::nn::Module>("ElectraModel"));
  BertConfig embedding_settings = config_.encoder;  // BERT's embeddings at embedding_size
  embedding_settings.hidden_size = config_.embedding_size;
  embeddings_ = base->register_module("embeddings", std::make_shared<BertEmbeddings>(embedding_settings));
  if (config_.projects_embeddings())
    embeddings_project_ = base->register_module(
        "embeddings_project", torch::nn::Linear(config_.embedding_size, config_.encoder.hidden_size));
  auto encoder = base->register_module("encoder", std::make_shared<torch::nn::Module>("ElectraEncoder"));
  layers_ = encoder->register_module("layer", torch::nn::ModuleList());
  for (long long i = 0; i < config_.encoder.num_hidden_layers; ++i)
    layers_->push_back(std::make_shared<BertLayer>(config_.encoder));
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

torch::Tensor ElectraForSequenceClassification::embed(const torch::Tensor& ids, const torch::Tensor& types,
                                                      const torch::Tensor& positions) {
  auto h = embeddings_->forward(ids, types, positions);
  if (!embeddings_project_) return h;
  return runner::dense(h, embeddings_project_->weight, embeddings_project_->bias);
}

torch::Tensor ElectraForSequenceClassification::encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                                              ModelOutput& out) {
  AttentionInputs a = attention_inputs(b);
  auto positions = torch::arange(a.length, b.input_ids.options()).unsqueeze(0);
  auto h = embed(b.input_ids, b.token_type_ids, positions);
  if (o.output_hidden_states) out.hidden_states.push_back(h);
  for (const auto& layer : *layers_) {
    h = run_layer([l = layer->as<BertLayer>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
    if (o.output_hidden_states) out.hidden_states.push_back(h);
  }
  return h.select(1, 0);
}

torch::Tensor ElectraForSequenceClassification::encode_unpadded(const ModelBatch& b) {
  PackedTokens packed = packed_tokens(b);
  AttentionInputs a = unpadded_attention_inputs(b, packed);
  auto ids = b.input_ids.reshape({-1}).index_select(0, a.token_index);
  auto types = b.token_type_ids.reshape({-1}).index_select(0, a.token_index);
  auto h = embed(ids, types, a.token_index.remainder(a.length));  // [T, hidden]
  for (const auto& layer : *layers_)
    h = run_layer([l = layer->as<BertLayer>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
  return h.index_select(0, packed.first_token);
}

ModelOutput ElectraForSequenceClassification::forward(const ModelBatch& b, const ForwardOptions& o) {
  ModelOutput out;
  out.pooled = runs_unpadded(execution_, b, o) ? encode_unpadded(b) : encode_padded(b, o, out);
  out.logits = head_->forward(out.pooled);
  if (b.labels.defined())
    out.loss = sequence_classification_loss(out.logits, b.labels, config_.encoder.num_labels,
                                            config_.encoder.problem_type, o.label_smoothing,
                                            o.class_weights);
  return out;
}

}  // namespace runner
