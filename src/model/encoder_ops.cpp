#include "model/encoder_ops.h"
#include "model/dense.h"
#include "model/host_read.h"
#include "model/lora.h"

#include <algorithm>
#include <limits>

namespace runner {

torch::Tensor hf_activation(const std::string& name, const torch::Tensor& x) {
  if (name == "gelu") return torch::gelu(x);
  if (name == "relu") return torch::relu(x);
  return torch::gelu(x, "tanh");
}

void hf_init_leaves(torch::nn::Module& root, double std_dev, const std::vector<std::string>& only) {
  torch::NoGradGuard no_grad;
  auto wanted = [&](const std::string& name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  // Without the root itself: it may still be under construction (no shared_ptr yet).
  for (const auto& item : root.named_modules("", /*include_self=*/false)) {
    const std::string prefix = item.key() + ".";
    const bool weight = wanted(prefix + "weight"), bias = wanted(prefix + "bias");
    if (auto* linear = item.value()->as<torch::nn::Linear>()) {
      if (weight) linear->weight.normal_(0.0, std_dev);
      if (bias && linear->bias.defined()) linear->bias.zero_();
    } else if (auto* embedding = item.value()->as<torch::nn::Embedding>()) {
      if (!weight) continue;
      embedding->weight.normal_(0.0, std_dev);
      if (auto pad = embedding->options.padding_idx()) embedding->weight[*pad].zero_();
    } else if (auto* norm = item.value()->as<torch::nn::LayerNorm>()) {
      if (weight) norm->weight.fill_(1.0);
      if (bias) norm->bias.zero_();
    }
  }
}

c10::Scalar lowest_value(torch::ScalarType dtype) {
  switch (dtype) {
    case torch::kBFloat16: return std::numeric_limits<c10::BFloat16>::lowest();
    case torch::kHalf: return std::numeric_limits<c10::Half>::lowest();
    case torch::kDouble: return std::numeric_limits<double>::lowest();
    default: return std::numeric_limits<float>::lowest();
  }
}

PackedTokens pack_tokens(const torch::Tensor& attention_mask) {
  PackedTokens p;
  p.token_index = torch::nonzero(attention_mask.reshape({-1})).squeeze(1);
  // Row r's first token sits after the real tokens of rows 0..r-1.
  auto lengths = attention_mask.ne(0).sum(1);
  p.first_token = torch::cumsum(lengths, 0) - lengths;
  return p;
}

torch::Tensor fused_qkv(const torch::Tensor& x, const torch::nn::Linear& q, const torch::nn::Linear& k,
                        const torch::nn::Linear& v) {
  auto weight = torch::cat({q->weight, k->weight, v->weight}, 0);
  auto bias = torch::cat({q->bias, k->bias, v->bias}, 0);
  torch::Tensor qkv = dense(x, weight, bias);
  // An adapter adds its product to its projection's columns.
  int64_t column = 0;
  for (const torch::nn::Linear* layer : {&q, &k, &v}) {
    if (LoraBranchImpl* branch = lora_branch_of(*layer)) qkv = branch->add_delta(std::move(qkv), column, x);
    column += (*layer)->weight.size(0);
  }
  return qkv;
}

torch::Tensor padded_qkv(const torch::Tensor& qkv, const torch::Tensor& token_index, int64_t batch,
                         int64_t length, int64_t heads) {
  return torch::zeros({batch * length, qkv.size(1)}, qkv.options())
      .index_copy(0, token_index, qkv)
      .view({batch, length, 3, heads, qkv.size(1) / (3 * heads)})
      .permute({2, 0, 3, 1, 4});
}

torch::Tensor packed_context(const torch::Tensor& context, const torch::Tensor& token_index) {
  const int64_t batch = context.size(0), heads = context.size(1), length = context.size(2);
  return context.permute({0, 2, 1, 3})
      .reshape({batch * length, heads * context.size(3)})
      .index_select(0, token_index);
}

PackedTokens packed_tokens(const ModelBatch& b) {
  return b.packed ? *b.packed : pack_tokens(b.attention_mask);
}

bool runs_unpadded(Execution e, const ModelBatch& b, const ForwardOptions& o) {
  if (e != Execution::Unpadded || o.output_hidden_states) return false;
  return b.packed || read_bool(b.attention_mask.select(1, 0).all());
}

torch::Tensor sequence_classification_loss(const torch::Tensor& logits, const torch::Tensor& labels,
                                           long long num_labels, const std::string& problem_type,
                                           double label_smoothing, const torch::Tensor& class_weights) {
  // Transformers' choice when the config names no problem type: one output is a
  // regression, float targets over several outputs are multi-label.
  const bool multi_label = problem_type == "multi_label_classification" ||
                           (problem_type.empty() && num_labels > 1 && labels.is_floating_point());
  // Float targets stay float32 under autocast, as the loss of Transformers'
  // autocast forward reads them: a bf16 copy would round a score of 3.54 to 3.53.
  if (multi_label) {
    torch::Tensor pos_weight =
        class_weights.defined() ? class_weights.to(logits.device(), torch::kFloat) : torch::Tensor();
    return torch::binary_cross_entropy_with_logits(logits.to(torch::kFloat), labels.to(torch::kFloat), {},
                                                   pos_weight);
  }
  if (num_labels == 1 || problem_type == "regression") {
    if (labels.is_floating_point())
      return torch::mse_loss(logits.squeeze().to(torch::kFloat), labels.squeeze().to(torch::kFloat));
    return torch::mse_loss(logits.squeeze(), labels.squeeze().to(logits.scalar_type()));
  }
  torch::Tensor weight = class_weights.defined() ? class_weights.to(logits.device(), torch::kFloat) : torch::Tensor();
  return torch::cross_entropy_loss(logits.view({-1, num_labels}), labels.view({-1}), weight,
                                   at::Reduction::Mean, -100, label_smoothing);
}

}  // namespace runner
