#include "model/encoder_with_head.h"

#include "model/encoder_ops.h"

namespace runner {

ModelOutput EncoderWithHead::forward(const ModelBatch& b, const ForwardOptions& o) {
  EncoderOutput encoded = encoder_->forward(b, o);
  ModelOutput out;
  out.logits = head(encoded, out);
  out.hidden_states = std::move(encoded.hidden_states);
  if (b.labels.defined()) out.loss = loss(out.logits, b, o);
  return out;
}

torch::Tensor EncoderWithHead::loss(const torch::Tensor& logits, const ModelBatch& b, const ForwardOptions& o) {
  return sequence_classification_loss(logits, b.labels, num_labels(), problem_type(), o.label_smoothing,
                                      o.class_weights);
}

}  // namespace runner
