#include "model/question_answerer.h"

#include "model/encoder_ops.h"
#include "model/hf_config_fields.h"
#include "model/lora.h"
#include "model/task_head.h"

namespace runner {

QuestionAnswerer::QuestionAnswerer(TokenHeadSpec spec, Init init) : spec_(std::move(spec)) {
  if (spec_.num_labels != 2)
    config_error("model config", "num_labels",
                 "a question answering head has 2 outputs (start and end), but num_labels = " +
                     std::to_string(spec_.num_labels),
                 "leave num_labels and id2label out of a question answering model");
  spec_.hf_config = with_task_head(std::move(spec_.hf_config), TaskHead::QuestionAnswering);
  // Registration order is Hugging Face's module order, hence its parameter order.
  attach_encoder(spec_.encoder_name, spec_.encoder);
  if (spec_.prediction_head) register_module("head", spec_.prediction_head);
  outputs_ = register_module(spec_.output_name, torch::nn::Linear(spec_.hidden_size, 2));
  EncoderWithHead::set_execution(Execution::Padded);
  if (init == Init::HuggingFace) init_weights();
}

void QuestionAnswerer::init_weights(const std::vector<std::string>& only) { spec_.init(*this, only); }

torch::Tensor QuestionAnswerer::head(const EncoderOutput& encoded, ModelOutput&) {
  torch::Tensor x = encoded.per_position();
  if (spec_.apply_prediction_head) x = spec_.apply_prediction_head(x);
  return linear_forward(outputs_, train_dropout(x, spec_.dropout, is_training()));
}

torch::Tensor QuestionAnswerer::loss(const torch::Tensor& logits, const ModelBatch& b, const ForwardOptions&) {
  const int64_t length = logits.size(1);
  // Float targets from a file dataset (data/tokenized_split.h), ids from a test batch: both exact.
  const torch::Tensor positions = b.labels.to(logits.device(), torch::kLong).clamp(0, length);
  const torch::Tensor scores = logits.to(torch::kFloat);
  auto side = [&](int64_t column) {
    return torch::cross_entropy_loss(scores.select(2, column), positions.select(1, column), {}, at::Reduction::Mean,
                                     length);
  };
  return (side(0) + side(1)) / 2;
}

}  // namespace runner
