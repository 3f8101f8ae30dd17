// A family's encoder with a task head on top, as Transformers' *ForSequence-
// Classification and *ForTokenClassification are: the encoder registered first
// under the base model's name ("bert"), then the head's layers under theirs,
// so that named_parameters() are Hugging Face's keys in its order.
#pragma once

#include "model/encoder.h"
#include "model/model.h"

#include <memory>
#include <string>

namespace runner {

class EncoderWithHead : public TaskModel {
 public:
  // The encoder's output, then the head's logits, then the loss when the batch has labels.
  ModelOutput forward(const ModelBatch& batch, const ForwardOptions& options = {}) override;
  void set_execution(Execution e) override { encoder_->set_execution(e); }
  Execution execution() const override { return encoder_->execution(); }
  bool uses_token_type_ids() const override { return encoder_->uses_token_type_ids(); }
  void set_gradient_checkpointing(bool on) override { encoder_->set_gradient_checkpointing(on); }
  bool gradient_checkpointing() const override { return encoder_->gradient_checkpointing(); }

 protected:
  // Registers the encoder as `name`; call it before registering any head layer.
  template <class E>
  std::shared_ptr<E> attach_encoder(const std::string& name, std::shared_ptr<E> encoder) {
    encoder_ = register_module(name, std::move(encoder));
    return std::static_pointer_cast<E>(encoder_);
  }
  // The head: the logits from the encoder's output; it may set out.pooled.
  virtual torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) = 0;
  // The head's loss. Sequence classification's unless a head says otherwise.
  virtual torch::Tensor loss(const torch::Tensor& logits, const ModelBatch& batch, const ForwardOptions& options);
  // The problem type the sequence loss reads ("" lets the labels decide).
  virtual std::string problem_type() const = 0;

 private:
  std::shared_ptr<Encoder> encoder_;
};

}  // namespace runner
