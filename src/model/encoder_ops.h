// Pieces that the DistilBERT and ELECTRA families share: Hugging Face's
// _init_weights by module type, activations and dropout as transformers applies
// them, the packing of real tokens for unpadded execution, and the
// sequence-classification loss.
#pragma once

#include "model/model.h"

#include <string>
#include <vector>

namespace runner {

// nn.Dropout: identity in eval mode or at p = 0 (then no random number is drawn).
// On the CPU (float, bf16) the mask comes from a counter-based hash seeded by
// one draw from the default generator (model/dropout.cpp), not from bernoulli_:
// a different mask than torch's for the same seed, the same distribution.
// With `rows`, x [R, W] holds those rows of a larger [*, W] tensor, and each
// element gets the CPU mask of its place there (elsewhere `rows` changes nothing).
torch::Tensor train_dropout(const torch::Tensor& x, double p, bool training, const torch::Tensor& rows = {});
// The seed of one such mask (model/dropout_kernel.h), drawn as train_dropout draws it.
uint64_t draw_dropout_seed();

// transformers' ACT2FN by config name: "gelu" (erf), "relu", "gelu_new" and
// "gelu_pytorch_tanh" (the tanh form).
torch::Tensor hf_activation(const std::string& name, const torch::Tensor& x);

// _init_weights of BERT, DistilBERT and ELECTRA applied to every Linear,
// Embedding and LayerNorm below `root`, in registration order (the order of
// module.apply() over leaves): weights N(0, std), biases 0, the padding_idx row
// of an embedding 0, LayerNorm 1 / 0. With `only` non-empty, just the parameters
// of those names (relative to `root`).
void hf_init_leaves(torch::nn::Module& root, double std_dev, const std::vector<std::string>& only = {});

// finfo(dtype).min as Hugging Face fills masked attention scores with it.
c10::Scalar lowest_value(torch::ScalarType dtype);

// From the mask, on its device (torch::nonzero reads the count back).
PackedTokens pack_tokens(const torch::Tensor& attention_mask);
// The batch's own packing when its builder made one, else pack_tokens.
PackedTokens packed_tokens(const ModelBatch& b);

// q, k and v projected in one GEMM on the packed tokens x [T, H]
// (concatenating the weights costs less than two more passes over x): [T, 3H].
torch::Tensor fused_qkv(const torch::Tensor& x, const torch::nn::Linear& q, const torch::nn::Linear& k,
                        const torch::nn::Linear& v);
// Those projections scattered to the padded [3, B, heads, L, d] for the padded
// attention product; padding rows are zero.
torch::Tensor padded_qkv(const torch::Tensor& qkv, const torch::Tensor& token_index, int64_t batch,
                         int64_t length, int64_t heads);
// An attention context [B, heads, L, d] gathered back to the packed tokens [T, heads * d].
torch::Tensor packed_context(const torch::Tensor& context, const torch::Tensor& token_index);
// The rows a layer keeps past its attention (Encoder::kept_rows) taken from
// x [T, ...]; x itself when `rows` is undefined (every row kept).
inline torch::Tensor kept_rows_of(const torch::Tensor& x, const torch::Tensor& rows) {
  return rows.defined() ? x.index_select(0, rows) : x;
}

// Whether a forward may run unpadded: asked for, no padded hidden states
// requested, and every row starts with a real token at column 0 (the head
// reads column 0, as Hugging Face does whatever the mask says). Reads the mask
// back only for a batch that carries no packing (ModelBatch::packed).
bool runs_unpadded(Execution e, const ModelBatch& b, const ForwardOptions& o);

// Hugging Face's loss for *ForSequenceClassification: MSE for one label or a
// regression problem, BCE with logits for multi-label (labels [B, num_labels]
// of 0/1), else cross entropy (mean over the batch), with label smoothing when
// `label_smoothing` > 0 (ForwardOptions::label_smoothing). `class_weights`
// (defined: one per class) weighs cross entropy's classes as torch's
// CrossEntropyLoss(weight=) does, or is BCEWithLogitsLoss's pos_weight.
torch::Tensor sequence_classification_loss(const torch::Tensor& logits, const torch::Tensor& labels,
                                           long long num_labels, const std::string& problem_type,
                                           double label_smoothing = 0.0,
                                           const torch::Tensor& class_weights = {});

}  // namespace runner
