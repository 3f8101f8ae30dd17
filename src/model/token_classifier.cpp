#include "model/token_classifier.h"

#include "model/encoder_ops.h"
#include "model/lora.h"
#include "model/task_head.h"

namespace runner {

TokenClassifier::TokenClassifier(TokenHeadSpec spec, Init init) : spec_(std::move(spec)) {
  spec_.hf_config = with_task_head(std::move(spec_.hf_config), TaskHead::TokenClassification);
  // Registration order is Hugging Face's module order, hence its parameter order.
  attach_encoder(spec_.encoder_name, spec_.encoder);
  if (spec_.prediction_head) register_module("head", spec_.prediction_head);
  classifier_ = register_module(spec_.output_name, torch::nn::Linear(spec_.hidden_size, spec_.num_labels));
  if (init == Init::HuggingFace) init_weights();
}

std::string TokenClassifier::label_name(long long id) const {
  auto names = spec_.hf_config.find("id2label");
  if (names != spec_.hf_config.end() && names->is_object()) {
    auto name = names->find(std::to_string(id));
    if (name != names->end() && name->is_string()) return name->get<std::string>();
  }
  return TaskModel::label_name(id);
}

void TokenClassifier::init_weights(const std::vector<std::string>& only) { spec_.init(*this, only); }

torch::Tensor TokenClassifier::head(const EncoderOutput& encoded, ModelOutput&) {
  torch::Tensor x = encoded.hidden;
  if (spec_.apply_prediction_head) x = spec_.apply_prediction_head(x);
  auto logits = linear_forward(classifier_, train_dropout(x, spec_.dropout, is_training()));
  return encoded.packed ? scatter_to_positions(logits, *encoded.packed, encoded.batch, encoded.length) : logits;
}

// Transformers' ForTokenClassification loss: float32 logits, labels of -100
// ignored. A packed forward's padding has zero logits and, as the collator
// pads them, -100 labels: it adds nothing.
torch::Tensor TokenClassifier::loss(const torch::Tensor& logits, const ModelBatch& b, const ForwardOptions& o) {
  auto flat = logits.reshape({-1, spec_.num_labels}).to(torch::kFloat);
  torch::Tensor weight = o.class_weights.defined() ? o.class_weights.to(logits.device(), torch::kFloat) : torch::Tensor();
  return torch::cross_entropy_loss(flat, b.labels.reshape({-1}).to(logits.device()), weight, at::Reduction::Mean,
                                   -100, o.label_smoothing);
}

}  // namespace runner
