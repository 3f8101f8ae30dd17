#include "train/split_batch_source.h"

#include "data/token_label_alignment.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <algorithm>

namespace runner {
namespace {

torch::Tensor int64_tensor(const std::vector<int64_t>& v, std::vector<int64_t> shape,
                           const torch::Device& device) {
  auto cpu = torch::from_blob(const_cast<int64_t*>(v.data()), shape, torch::kInt64).clone();
  if (device.is_cpu()) return cpu;
  // Pinned and non-blocking: a copy from pageable memory waits for every kernel
  // queued before it (the previous step), so the host could not run ahead.
  return cpu.pin_memory().to(device, /*non_blocking=*/true);
}

torch::Tensor float_tensor(const std::vector<float>& v, std::vector<int64_t> shape, const torch::Device& device) {
  auto cpu = torch::from_blob(const_cast<float*>(v.data()), shape, torch::kFloat32).clone();
  if (device.is_cpu()) return cpu;
  return cpu.pin_memory().to(device, /*non_blocking=*/true);
}

// The packing the unpadded path needs (ModelBatch::packed), from the host's mask:
// only when every row starts with a real token, as runs_unpadded requires.
std::optional<PackedTokens> packing(const Batch& b, const torch::Device& device) {
  std::vector<int64_t> token_index, first_token;
  for (int64_t r = 0; r < b.batch_size; ++r) {
    const int64_t* row = b.attention_mask.data() + r * b.seq_len;
    if (b.seq_len == 0 || row[0] == 0) return std::nullopt;
    first_token.push_back(static_cast<int64_t>(token_index.size()));
    for (int64_t c = 0; c < b.seq_len; ++c)
      if (row[c] != 0) token_index.push_back(r * b.seq_len + c);
  }
  const auto tokens = static_cast<int64_t>(token_index.size());
  return PackedTokens{int64_tensor(token_index, {tokens}, device),
                      int64_tensor(first_token, {b.batch_size}, device)};
}

}  // namespace

TrainBatch to_train_batch(const Batch& b, const std::string& split, const torch::Device& device) {
  TrainBatch out;
  const std::vector<int64_t> shape = {b.batch_size, b.seq_len};
  out.tensors.input_ids = int64_tensor(b.input_ids, shape, device);
  out.tensors.token_type_ids = int64_tensor(b.token_type_ids, shape, device);
  out.tensors.attention_mask = int64_tensor(b.attention_mask, shape, device);
  bool labelled = !b.labels.empty() && b.labels.front() >= 0;
  if (!b.token_labels.empty()) {
    out.tensors.labels = int64_tensor(b.token_labels, shape, device);
    out.labelled_tokens = std::count_if(b.token_labels.begin(), b.token_labels.end(),
                                        [](int64_t l) { return l != kIgnoredLabel; });
  }
  else if (labelled && b.target_width > 0)
    out.tensors.labels = float_tensor(b.targets, {b.batch_size, b.target_width}, device);
  else if (labelled)
    out.tensors.labels = int64_tensor(b.labels, {b.batch_size}, device);
  out.tensors.packed = packing(b, device);
  for (size_t i = 0; i < b.example_ids.size(); ++i) {
    out.example_ids.push_back(fmt::format("{}/{}", split, b.example_ids[i]));
    out.examples += b.is_padding.empty() || !b.is_padding[i];
  }
  out.tokens = b.real_tokens();
  return out;
}

SplitBatchSource::SplitBatchSource(std::shared_ptr<const TokenizedSplit> split,
                                   std::string split_name, SamplerConfig sampler,
                                   PaddingOptions padding, torch::Device device)
    : split_(std::move(split)),
      split_name_(std::move(split_name)),
      sampler_(sampler),
      padding_(padding),
      device_(device) {
  batches_per_epoch_ = BatchIterator(split_, sampler_, padding_, {}, 0).batches_per_epoch();
}

// The iterator is reopened only when the trainer asks for another position than
// the one it stands at: after a resume, or never in an uninterrupted run.
TrainBatch SplitBatchSource::batch(long long index) {
  SamplerState want{epoch_, index};
  if (!iterator_ || iterator_->state().epoch != want.epoch ||
      iterator_->state().next_batch != want.next_batch)
    iterator_ = std::make_unique<BatchIterator>(split_, sampler_, padding_, want, 2);
  std::optional<Batch> b = iterator_->next();
  if (!b)
    throw std::logic_error(fmt::format("batch {} of epoch {} is past the epoch's {} batches", index,
                                       epoch_, batches_per_epoch_));
  TrainBatch out = to_train_batch(*b, split_name_, device_);
  tokens_served_ += out.tokens;
  return out;
}

// The per-worker batch lets a resume check the global batch (train/batch_topology.h).
nlohmann::json SplitBatchSource::state() const {
  return {{"random_order", kRandomOrderName},
          {"batch_size", sampler_.batch_size},
          {"length_group_batch", sampler_.group_batch()}};
}

void SplitBatchSource::load_state(const nlohmann::json& state) {
  if (sampler_.kind == SamplerKind::Sequential) return;
  // Before any batch of this session is made, so the whole continuation uses it.
  if (state.contains("length_group_batch")) {
    sampler_.length_group_batch = state["length_group_batch"].get<int64_t>();
    iterator_.reset();
  }
  // Checkpoints from before the torch-compatible order carry no name.
  const std::string written = record_string(state, "random_order", "splitmix64");
  if (written == kRandomOrderName) return;
  throw InputError(make_error(
      {}, "data.sampler",
      fmt::format("the checkpoint's run shuffled its data with the '{}' order, and this runner "
                  "draws the '{}' order; the rest of the epoch would visit other examples",
                  written, kRandomOrderName),
      "finish the run with the runner version that started it, or start a new run"));
}

EvalSet make_eval_set(const std::shared_ptr<const TokenizedSplit>& split,
                      const std::string& split_name, const DatasetInfo& info,
                      const PaddingOptions& padding, long long batch_size,
                      const torch::Device& device) {
  EvalSet set;
  set.metrics = info.metrics;
  set.problem = info.problem_type;
  set.threshold = info.threshold;
  set.label_names = info.label_names;
  if (!split) return set;
  SamplerConfig s;
  s.kind = SamplerKind::Sequential;
  s.batch_size = batch_size;
  BatchIterator it(split, s, padding, {}, 0);
  while (std::optional<Batch> b = it.next()) set.batches.push_back(to_train_batch(*b, split_name, device));
  return set;
}

}  // namespace runner
