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
  asked_ = execution();
  EncoderWithHead::set_execution(Execution::Padded);
  if (init == Init::HuggingFace) init_weights();
}

void QuestionAnswerer::set_loss_over_padding(bool on) {
  over_padding_ = on;
  set_execution(asked_);
}

void QuestionAnswerer::set_execution(Execution e) {
  asked_ = e;
  EncoderWithHead::set_execution(over_padding_ ? Execution::Padded : e);
}

void QuestionAnswerer::init_weights(const std::vector<std::string>& only) { spec_.init(*this, only); }

torch::Tensor QuestionAnswerer::head(const EncoderOutput& encoded, ModelOutput&) {
  torch::Tensor x = encoded.hidden;
  if (spec_.apply_prediction_head) x = spec_.apply_prediction_head(x);
  const torch::Tensor rows = linear_forward(outputs_, train_dropout(x, spec_.dropout, is_training()));
  return over_padding_ ? rows : tokens_only(rows, encoded);
}

// finfo.min, as Hugging Face masks: its exp underflows to exactly 0, so the
// softmax and its gradient are those over the tokens alone.
torch::Tensor QuestionAnswerer::tokens_only(const torch::Tensor& rows, const EncoderOutput& encoded) const {
  const c10::Scalar lowest = lowest_value(rows.scalar_type());
  if (!encoded.packed) return rows.masked_fill(encoded.attention_mask.eq(0).unsqueeze(-1), lowest);
  return torch::full({encoded.batch * encoded.length, 2}, lowest, rows.options())
      .index_copy(0, encoded.packed->token_index, rows)
      .view({encoded.batch, encoded.length, 2});
}

torch::Tensor QuestionAnswerer::loss(const torch::Tensor& logits, const ModelBatch& b, const ForwardOptions&) {
  const int64_t length = logits.size(1);
  // Float targets from a file dataset (data/tokenized_split.h), ids from a test batch: both exact.
  torch::Tensor positions = b.labels.to(logits.device(), torch::kLong).clamp(0, length);
  if (!over_padding_) {
    // A position at the padding names no token, so it is ignored like one past
    // the sequence: run_qa.py's search for an answer that starts at a window's
    // last context token runs on into the padding and stops at its end.
    const torch::Tensor mask = b.attention_mask.to(logits.device(), torch::kLong);
    positions = positions.masked_fill(mask.gather(1, positions.clamp_max(length - 1)).eq(0), length);
  }
  const torch::Tensor scores = logits.to(torch::kFloat);
  auto side = [&](int64_t column) {
    return torch::cross_entropy_loss(scores.select(2, column), positions.select(1, column), {}, at::Reduction::Mean,
                                     length);
  };
  return (side(0) + side(1)) / 2;
}

}  // namespace runner
