#include "model/packed_relative_attention.h"

#include "model/encoder_ops.h"
#include "model/packed_heads.h"
#include "model/relative_attention_kernel.h"

#include <ATen/record_function.h>

namespace runner {
namespace {

// Each sequence's window of the projected table, per term (the same for every head).
struct SequenceWindows {
  std::vector<TableWindow> c2p, p2c;
};

// Every window lies within the projected rows by the tables' making (their
// first row and the relative positions' reach); checked, as a row outside
// would be read out of bounds.
SequenceWindows sequence_windows(const RelativeHeadSpec& s, const PackedSequences& seq, int64_t c2p_rows,
                                 int64_t p2c_rows) {
  const int64_t* starts = seq.starts.data_ptr<int64_t>();
  const int64_t* columns = seq.columns.data_ptr<int64_t>();
  SequenceWindows w;
  for (int64_t b = 0; b + 1 < seq.starts.numel(); ++b) {
    const int64_t n = starts[b + 1] - starts[b];
    w.c2p.push_back(term_window(s.c2p, columns + starts[b], n, seq.padded_length));
    w.p2c.push_back(term_window(s.p2c, columns + starts[b], n, seq.padded_length));
    for (const auto& [window, rows] : {std::pair{w.c2p.back(), c2p_rows}, std::pair{w.p2c.back(), p2c_rows}})
      TORCH_CHECK(window.first >= 0 && window.first + window.rows <= rows,
                  "packed relative attention: a sequence reads table rows outside the projected ones");
  }
  return w;
}

// Where each (sequence, head)'s [rows, d] share of a table's gradient starts.
std::vector<int64_t> share_offsets(const std::vector<TableWindow>& windows, int64_t heads, int64_t d) {
  std::vector<int64_t> offsets(windows.size() * heads + 1, 0);
  for (size_t task = 0; task + 1 < offsets.size(); ++task)
    offsets[task + 1] = offsets[task] + windows[task / heads].rows * d;
  return offsets;
}

const float* table_rows(const torch::Tensor& table, const TableWindow& w, int64_t head, int64_t d) {
  return table.numel() > 0 ? table.data_ptr<float>() + w.first * table.size(1) + head * d : nullptr;
}

RelativeHeadSpec relative_spec(int64_t head_dim, double scale, double p, uint64_t seed,
                               const RelativeIndexTables& tables) {
  RelativeHeadSpec s;
  s.head.sgemm = process_sgemm();
  s.head.head_dim = head_dim;
  s.head.dropout = p > 0.0;
  s.head.mask = dropout_mask(seed, p);
  s.head.dropout_scale = 1.0f / static_cast<float>(1.0 - p);
  s.scale = static_cast<float>(scale);
  if (tables.c2p.defined()) s.c2p.index = tables.c2p.data_ptr<int32_t>();
  if (tables.p2c.defined()) s.p2c.index = tables.p2c.data_ptr<int32_t>();
  return s;
}

// The operands of (sequence b, head h) whose tokens start at `first`.
struct CallOperands {
  const torch::Tensor &qkv, &pos_key, &pos_query;
  const SequenceWindows& windows;
  int64_t heads, head_dim;

  RelativeHeadBuffers head(int64_t b, int64_t h, int64_t first, float* probs, float* scratch) const {
    const int64_t hidden = heads * head_dim;
    const float* q = qkv.data_ptr<float>() + first * 3 * hidden + h * head_dim;
    const TableWindow c2p = windows.c2p[b], p2c = windows.p2c[b];
    return {q,        q + hidden, q + 2 * hidden, 3 * hidden, table_rows(pos_key, c2p, h, head_dim),
            table_rows(pos_query, p2c, h, head_dim),   hidden,     c2p,        p2c,
            probs,    scratch};
  }
  int64_t scratch_floats(int64_t b, int64_t n) const {
    return relative_head_scratch_floats(n, head_dim, windows.c2p[b].rows, windows.p2c[b].rows);
  }
};

torch::Tensor forward_heads(const RelativeHeadSpec& s, const CallOperands& o, const PackedSequences& seq,
                            torch::Tensor& probs) {
  const int64_t hidden = o.heads * o.head_dim;
  const auto offsets = probs_offsets(seq, o.heads);
  probs = torch::empty({offsets.back()}, o.qkv.options());
  auto context = torch::empty({o.qkv.size(0), hidden}, o.qkv.options());
  float *kept = probs.data_ptr<float>(), *out = context.data_ptr<float>();
  const auto scratch_floats = [&](int64_t b, int64_t n) { return o.scratch_floats(b, n); };
  for_each_head(seq, o.heads, scratch_floats, [&](int64_t task, int64_t first, const HeadTask& t, float* scratch) {
    const int64_t b = task / o.heads, h = task % o.heads;
    attend_relative_head(s, t, o.head(b, h, first, kept + offsets[task], scratch), out + first * hidden + h * o.head_dim,
                         hidden);
  });
  return context;
}

// A term's [R, hidden] table gradient: each row the sum of the sequences'
// shares that read it, in batch order.
torch::Tensor summed_table_gradient(const torch::Tensor& shares, const std::vector<int64_t>& offsets,
                                    const std::vector<TableWindow>& windows, int64_t rows, int64_t heads,
                                    int64_t d) {
  auto grad = torch::zeros({rows, heads * d}, shares.options());
  const float* in = shares.data_ptr<float>();
  float* out = grad.data_ptr<float>();
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    for (size_t b = 0; b < windows.size(); ++b) {
      const TableWindow w = windows[b];
      for (int64_t r = std::max(begin, w.first); r < std::min(end, w.first + w.rows); ++r)
        for (int64_t h = 0; h < heads; ++h) {
          const float* share = in + offsets[b * heads + h] + (r - w.first) * d;
          float* row = out + r * heads * d + h * d;
          for (int64_t c = 0; c < d; ++c) row[c] += share[c];
        }
    }
  });
  return grad;
}

struct Gradients {
  torch::Tensor qkv, pos_key, pos_query;
};

Gradients backward_heads(const RelativeHeadSpec& s, const CallOperands& o, const PackedSequences& seq,
                         const torch::Tensor& probs, const torch::Tensor& grad) {
  const int64_t d = o.head_dim, hidden = o.heads * d;
  const auto offsets = probs_offsets(seq, o.heads);
  const auto c2p_offsets = share_offsets(o.windows.c2p, o.heads, d), p2c_offsets = share_offsets(o.windows.p2c, o.heads, d);
  Gradients g{torch::empty_like(o.qkv), {}, {}};
  auto c2p_shares = torch::empty({c2p_offsets.back()}, o.qkv.options());
  auto p2c_shares = torch::empty({p2c_offsets.back()}, o.qkv.options());
  const float* in_grad = grad.data_ptr<float>();
  float *kept = probs.data_ptr<float>(), *out = g.qkv.data_ptr<float>(), *c2p = c2p_shares.data_ptr<float>(), *p2c = p2c_shares.data_ptr<float>();
  const auto scratch_floats = [&](int64_t b, int64_t n) { return o.scratch_floats(b, n); };
  for_each_head(seq, o.heads, scratch_floats, [&](int64_t task, int64_t first, const HeadTask& t, float* scratch) {
    const int64_t b = task / o.heads, h = task % o.heads;
    float* dq = out + first * 3 * hidden + h * d;
    attend_relative_head_backward(s, t, o.head(b, h, first, kept + offsets[task], scratch),
                                  in_grad + first * hidden + h * d, hidden, dq, dq + hidden, dq + 2 * hidden,
                                  c2p + c2p_offsets[task], p2c + p2c_offsets[task]);
  });
  if (s.c2p.index)
    g.pos_key = summed_table_gradient(c2p_shares, c2p_offsets, o.windows.c2p, o.pos_key.size(0), o.heads, d);
  if (s.p2c.index)
    g.pos_query = summed_table_gradient(p2c_shares, p2c_offsets, o.windows.p2c, o.pos_query.size(0), o.heads, d);
  return g;
}

int64_t rows_of(const torch::Tensor& table) { return table.size(0); }

// An absent term's table as an autograd input: LibTorch's custom functions
// take no undefined tensor among their inputs.
torch::Tensor table_or_empty(const torch::Tensor& table, const torch::Tensor& qkv) {
  return table.defined() ? table : torch::empty({0, qkv.size(1) / 3}, qkv.options());
}

class PackedRelativeAttentionFunction : public torch::autograd::Function<PackedRelativeAttentionFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& qkv_in,
                               const torch::Tensor& pos_key_in, const torch::Tensor& pos_query_in,
                               const PackedSequences& seq, const RelativeIndexTables& tables,
                               const PackedRelativeSpec& spec) {
    // A custom function's forward is no dispatcher op: named here so that profiles count it.
    RECORD_FUNCTION("runner::packed_relative_attention", std::vector<c10::IValue>());
    const torch::Tensor qkv = qkv_in.contiguous(), pos_key = pos_key_in.contiguous(),
                        pos_query = pos_query_in.contiguous();
    const double p = spec.training ? spec.dropout_p : 0.0;
    const uint64_t seed = p > 0.0 ? draw_dropout_seed() : 0;
    const int64_t head_dim = qkv.size(1) / 3 / spec.heads;
    const RelativeHeadSpec s = relative_spec(head_dim, spec.scale, p, seed, tables);
    const SequenceWindows windows = sequence_windows(s, seq, rows_of(pos_key), rows_of(pos_query));
    torch::Tensor probs;
    auto context = forward_heads(s, {qkv, pos_key, pos_query, windows, spec.heads, head_dim}, seq, probs);
    ctx->save_for_backward({qkv, probs, pos_key, pos_query});
    ctx->saved_data["starts"] = seq.starts;
    ctx->saved_data["columns"] = seq.columns;
    ctx->saved_data["length"] = seq.padded_length;
    ctx->saved_data["c2p"] = tables.c2p;
    ctx->saved_data["p2c"] = tables.p2c;
    ctx->saved_data["heads"] = spec.heads;
    ctx->saved_data["scale"] = spec.scale;
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = static_cast<int64_t>(seed);
    return context;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &qkv = saved[0], &probs = saved[1], &pos_key = saved[2], &pos_query = saved[3];
    PackedSequences seq;
    seq.starts = ctx->saved_data["starts"].toTensor();
    seq.columns = ctx->saved_data["columns"].toTensor();
    seq.padded_length = ctx->saved_data["length"].toInt();
    const RelativeIndexTables tables{ctx->saved_data["c2p"].toTensor(), ctx->saved_data["p2c"].toTensor()};
    const int64_t heads = ctx->saved_data["heads"].toInt(), head_dim = qkv.size(1) / 3 / heads;
    const RelativeHeadSpec s =
        relative_spec(head_dim, ctx->saved_data["scale"].toDouble(), ctx->saved_data["p"].toDouble(),
                      static_cast<uint64_t>(ctx->saved_data["seed"].toInt()), tables);
    const SequenceWindows windows = sequence_windows(s, seq, rows_of(pos_key), rows_of(pos_query));
    const Gradients g = backward_heads(s, {qkv, pos_key, pos_query, windows, heads, head_dim}, seq, probs,
                                       grads[0].to(torch::kFloat).contiguous());
    return {g.qkv, g.pos_key, g.pos_query, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

RelativeIndexTables relative_index_tables(const torch::Tensor& relative_pos, int64_t span, int64_t first, bool c2p,
                                          bool p2c) {
  const auto rel = relative_pos.to(torch::kCPU, torch::kLong);
  RelativeIndexTables t;
  if (c2p) t.c2p = (torch::clamp(rel + span, 0, 2 * span - 1) - first).to(torch::kInt).contiguous();
  if (p2c) t.p2c = (torch::clamp(-rel + span, 0, 2 * span - 1) - first).to(torch::kInt).contiguous();
  return t;
}

bool packed_relative_attention_applies(const torch::Tensor& qkv) {
  return qkv.device().is_cpu() && qkv.scalar_type() == torch::kFloat && process_sgemm() != nullptr;
}

torch::Tensor packed_relative_attention(const torch::Tensor& qkv, const torch::Tensor& pos_key,
                                        const torch::Tensor& pos_query, const PackedSequences& sequences,
                                        const RelativeIndexTables& tables, const PackedRelativeSpec& spec) {
  return PackedRelativeAttentionFunction::apply(qkv, table_or_empty(pos_key, qkv), table_or_empty(pos_query, qkv),
                                                sequences, tables, spec);
}

}  // namespace runner
