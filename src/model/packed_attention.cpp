#include "model/packed_attention.h"

#include "model/encoder_ops.h"
#include "model/packed_heads.h"
#include "model/varlen_attention.h"

#include <ATen/record_function.h>

#include <algorithm>

namespace runner {
namespace {

template <typename T>
HeadBuffers<T> head_buffers(const T* qkv, int64_t first, int64_t head, int64_t hidden, int64_t head_dim,
                            float* probs, float* scratch) {
  const T* q = qkv + first * 3 * hidden + head * head_dim;
  return {q, q + hidden, q + 2 * hidden, 3 * hidden, probs, scratch};
}

template <typename T>
void forward_heads(const HeadAttentionSpec& s, const torch::Tensor& qkv, const PackedSequences& seq,
                   int64_t heads, torch::Tensor& probs, torch::Tensor& context) {
  const int64_t d = s.head_dim, hidden = heads * d;
  const auto offsets = probs_offsets(seq, heads);
  probs = torch::empty({offsets.back()}, qkv.options().dtype(torch::kFloat));
  const T* in = qkv.data_ptr<T>();
  T* out = context.data_ptr<T>();
  float* kept = probs.data_ptr<float>();
  const auto scratch_floats = [d](int64_t, int64_t n) { return head_scratch_floats(n, d); };
  for_each_head(seq, heads, scratch_floats, [&](int64_t task, int64_t first, const HeadTask& t, float* scratch) {
    const int64_t h = task % heads;
    attend_head<T>(s, t, head_buffers(in, first, h, hidden, d, kept + offsets[task], scratch),
                   out + first * hidden + h * d, hidden);
  });
}

template <typename T>
void backward_heads(const HeadAttentionSpec& s, const torch::Tensor& qkv, const PackedSequences& seq,
                    int64_t heads, const torch::Tensor& probs, const torch::Tensor& grad, torch::Tensor& dqkv) {
  const int64_t d = s.head_dim, hidden = heads * d;
  const auto offsets = probs_offsets(seq, heads);
  const T* in = qkv.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  T* out = dqkv.data_ptr<T>();
  float* kept = probs.data_ptr<float>();
  const auto scratch_floats = [d](int64_t, int64_t n) { return head_scratch_floats(n, d); };
  for_each_head(seq, heads, scratch_floats, [&](int64_t task, int64_t first, const HeadTask& t, float* scratch) {
    const int64_t h = task % heads;
    T* dq = out + first * 3 * hidden + h * d;
    attend_head_backward<T>(s, t, head_buffers(in, first, h, hidden, d, kept + offsets[task], scratch),
                            g + first * hidden + h * d, hidden, dq, dq + hidden, dq + 2 * hidden);
  });
}

HeadAttentionSpec head_spec(int64_t head_dim, ScoreScaling scaling, double p, uint64_t seed, int64_t window) {
  HeadAttentionSpec s;
  s.window = window;
  s.sgemm = process_sgemm();
  s.head_dim = head_dim;
  s.scaling = scaling;
  s.dropout = p > 0.0;
  s.mask = dropout_mask(seed, p);
  s.dropout_scale = 1.0f / static_cast<float>(1.0 - p);
  return s;
}

class PackedAttentionFunction : public torch::autograd::Function<PackedAttentionFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& qkv_in,
                               const PackedSequences& seq, const PackedAttentionSpec& spec) {
    // A custom function's forward is no dispatcher op: named here so that profiles count it.
    RECORD_FUNCTION("runner::packed_attention", std::vector<c10::IValue>());
    const torch::Tensor qkv = qkv_in.contiguous();
    const double p = spec.training ? spec.dropout_p : 0.0;
    const uint64_t seed = p > 0.0 ? draw_dropout_seed() : 0;
    const int64_t hidden = qkv.size(1) / 3;
    const HeadAttentionSpec s = head_spec(hidden / spec.heads, spec.scaling, p, seed, spec.window);
    torch::Tensor probs, context = torch::empty({qkv.size(0), hidden}, qkv.options());
    if (qkv.scalar_type() == torch::kBFloat16)
      forward_heads<c10::BFloat16>(s, qkv, seq, spec.heads, probs, context);
    else
      forward_heads<float>(s, qkv, seq, spec.heads, probs, context);
    ctx->save_for_backward({qkv, probs});
    ctx->saved_data["starts"] = seq.starts;
    ctx->saved_data["columns"] = seq.columns;
    ctx->saved_data["length"] = seq.padded_length;
    ctx->saved_data["heads"] = spec.heads;
    ctx->saved_data["scaling"] = static_cast<int64_t>(spec.scaling);
    ctx->saved_data["window"] = spec.window;
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = static_cast<int64_t>(seed);
    return context;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &qkv = saved[0], &probs = saved[1];
    PackedSequences seq;
    seq.starts = ctx->saved_data["starts"].toTensor();
    seq.columns = ctx->saved_data["columns"].toTensor();
    seq.padded_length = ctx->saved_data["length"].toInt();
    const int64_t heads = ctx->saved_data["heads"].toInt();
    const auto scaling = static_cast<ScoreScaling>(ctx->saved_data["scaling"].toInt());
    const HeadAttentionSpec s = head_spec(qkv.size(1) / 3 / heads, scaling, ctx->saved_data["p"].toDouble(),
                                          static_cast<uint64_t>(ctx->saved_data["seed"].toInt()),
                                          ctx->saved_data["window"].toInt());
    const torch::Tensor grad = grads[0].to(qkv.scalar_type()).contiguous();
    torch::Tensor dqkv = torch::empty_like(qkv);
    if (qkv.scalar_type() == torch::kBFloat16)
      backward_heads<c10::BFloat16>(s, qkv, seq, heads, probs, grad, dqkv);
    else
      backward_heads<float>(s, qkv, seq, heads, probs, grad, dqkv);
    return {dqkv, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

std::shared_ptr<const PackedSequences> packed_sequences(const torch::Tensor& token_index, int64_t batch,
                                                        int64_t length) {
  auto flat = token_index.to(torch::kCPU, torch::kLong).contiguous();
  auto rows = flat.div(length, "floor");
  auto counts = torch::bincount(rows, {}, batch);
  auto sequences = std::make_shared<PackedSequences>();
  sequences->starts = torch::cat({torch::zeros({1}, torch::kLong), torch::cumsum(counts, 0)});
  sequences->columns = flat.remainder(length);
  sequences->padded_length = length;
  // From the host copy, without item(): a step makes no scalar reads between log steps.
  const int64_t* starts = sequences->starts.data_ptr<int64_t>();
  for (int64_t b = 0; b < batch; ++b) sequences->longest = std::max(sequences->longest, starts[b + 1] - starts[b]);
  if (token_index.is_cuda()) sequences->device_starts = sequences->starts.to(token_index.device(), torch::kInt);
  return sequences;
}

bool packed_attention_applies(const torch::Tensor& qkv, const PackedAttentionSpec& spec) {
  if (qkv.is_cuda()) return varlen_attention_applies(qkv, spec);
  const bool dropping = spec.training && spec.dropout_p > 0.0;
  const bool bf16_ok = spec.scaling == ScoreScaling::AfterProduct ||
                       (spec.scaling == ScoreScaling::TimesInverseRoot && !dropping);
  const auto dtype = qkv.scalar_type();
  const bool dtype_ok = dtype == torch::kFloat || (dtype == torch::kBFloat16 && bf16_ok);
  return qkv.device().is_cpu() && dtype_ok && process_sgemm() != nullptr;
}

torch::Tensor packed_attention(const torch::Tensor& qkv, const PackedSequences& sequences,
                               const PackedAttentionSpec& spec) {
  if (qkv.is_cuda()) return varlen_attention(qkv, sequences, spec);
  return PackedAttentionFunction::apply(qkv, sequences, spec);
}

}  // namespace runner
