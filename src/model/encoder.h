// The encoder of a model family: embeddings and layers, as Transformers'
// BertModel, RobertaModel ... are, without any task head. A task model
// (model/encoder_with_head.h) puts a head on it; several heads share one
// encoder class, so a new task is a few lines per family, not a new model.
#pragma once

#include "model/model.h"

#include <functional>
#include <optional>
#include <vector>

namespace runner {

// The last layer's output, padded or packed, with what a head needs to read it.
struct EncoderOutput {
  // Padded: [B, L, H], padding positions included. Packed: [T, H], the real
  // tokens of `packed.token_index` in order.
  torch::Tensor hidden;
  std::optional<PackedTokens> packed;  // set when `hidden` is packed
  // Packed, with only each sequence's first token kept past the last layer's
  // attention (Encoder::keep_first_tokens_only): `hidden` is then [B, H].
  bool first_tokens_only = false;
  int64_t batch = 0, length = 0;
  torch::Tensor attention_mask;  // the batch's [B, L]
  // With output_hidden_states (padded only): the embeddings' output and every layer's.
  std::vector<torch::Tensor> hidden_states;

  // [B, H]: every row's column 0, the token a sequence head reads.
  torch::Tensor first_tokens() const;
  // [B, H]: the mean over each row's real tokens (every token kept).
  torch::Tensor mean_of_tokens() const;
};

// Rows of the real tokens [T, ...] put back at their positions: [B, L, ...],
// zero at the padding.
torch::Tensor scatter_to_positions(const torch::Tensor& rows, const PackedTokens& packed, int64_t batch,
                                   int64_t length);

class Encoder : public torch::nn::Module {
 public:
  // Packed when the execution and the batch allow it (runs_packed), else padded.
  EncoderOutput forward(const ModelBatch& batch, const ForwardOptions& options);
  // DistilBERT and RoBERTa do not read the batch's token types.
  virtual bool uses_token_type_ids() const { return true; }

  void set_execution(Execution e) { execution_ = e; }
  Execution execution() const { return execution_; }
  // model.gradient_checkpointing: in training, each layer keeps only its input
  // and is recomputed in the backward (model/layer_recompute.h).
  void set_gradient_checkpointing(bool on) { gradient_checkpointing_ = on; }
  bool gradient_checkpointing() const { return gradient_checkpointing_; }
  // A head that reads only each sequence's first token (a sequence head's
  // [CLS]) asks for it: on packed tokens, the last layer then runs its output
  // projection, residual and feed-forward on those B rows instead of all T,
  // where the family can (can_keep_first_tokens_only). Those rows are the
  // same sums as before; the rest were never read.
  void keep_first_tokens_only(bool on) { first_tokens_only_ = on; }

 protected:
  // `name` is Transformers' class name ("BertModel"); ModernBERT starts padded.
  explicit Encoder(const std::string& name, Execution initial = Execution::Unpadded)
      : torch::nn::Module(name), execution_(initial) {}
  // Whether this forward runs on the packed tokens: model/encoder_ops.h's
  // runs_unpadded, unless a family's kernels ask for more.
  virtual bool runs_packed(const ModelBatch& b, const ForwardOptions& o) const;
  // Whether encode_unpadded honours keep_first_tokens_only (kept_rows).
  virtual bool can_keep_first_tokens_only() const { return false; }
  // On packed tokens, the rows layer `layer` of `layers` keeps past its
  // attention: the sequences' first tokens for the last layer when asked,
  // else undefined (every row).
  torch::Tensor kept_rows(const PackedTokens& packed, size_t layer, size_t layers) const;
  // The last hidden states [B, L, H]; with output_hidden_states, every layer's
  // too (the embeddings' first), appended to `hidden_states`.
  virtual torch::Tensor encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                      std::vector<torch::Tensor>& hidden_states) = 0;
  // The last hidden states of the real tokens [T, H], in `packed` order.
  virtual torch::Tensor encode_unpadded(const ModelBatch& b, const PackedTokens& packed) = 0;
  // One layer: layer(hidden), recomputed in the backward when gradient
  // checkpointing is on and a backward will follow. `layer` captures by value.
  torch::Tensor run_layer(std::function<torch::Tensor(const torch::Tensor&)> layer,
                          const torch::Tensor& hidden);
  // Each of `layers` over the packed rows h in turn, through run_layer, the
  // last on kept_rows' rows: call(layer, x, rows) runs one, a Layer*. It is
  // kept for the recomputation in the backward, so it captures by value.
  template <class Layer, class Call>
  torch::Tensor run_packed_layers(torch::nn::ModuleList& layers, const PackedTokens& packed, torch::Tensor h,
                                  const Call& call) {
    for (size_t i = 0; i < layers->size(); ++i)
      h = run_layer([l = layers[i]->as<Layer>(), rows = kept_rows(packed, i, layers->size()), call](
                        const torch::Tensor& x) { return call(l, x, rows); },
                    h);
    return h;
  }

 private:
  Execution execution_;
  bool gradient_checkpointing_ = false;
  bool first_tokens_only_ = false;
  // Asked for and honoured by this family.
  bool keeps_first_tokens_only() const { return first_tokens_only_ && can_keep_first_tokens_only(); }
};

}  // namespace runner
