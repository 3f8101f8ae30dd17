#include "run/run_data.h"

#include "data/token_cache.h"
#include "model/export.h"
#include "registry/registry.h"
#include "tokenizer/encoding.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace runner {
namespace {

// The dataset's name and its own options: a change there re-tokenizes, a change
// of batch size or sampler does not.
std::string dataset_cache_key(const nlohmann::json& data_section) {
  std::string name = data_section.at("dataset").get<std::string>();
  nlohmann::json own = nlohmann::json::object();
  if (const Component* c = registry().find(Kind::Dataset, name))
    for (const auto& o : c->spec.options)
      if (data_section.contains(o.name)) own[o.name] = data_section[o.name];
  own["on_bad_row"] = data_section.value("on_bad_row", "error");
  return name + " " + own.dump();
}

TokenizedSplit first_examples(const TokenizedSplit& s, long long limit) {
  if (limit <= 0 || static_cast<size_t>(limit) >= s.size()) return s;
  auto n = static_cast<size_t>(limit);
  auto end = static_cast<size_t>(s.offsets[n]);
  TokenizedSplit out;
  out.has_labels = s.has_labels;
  out.offsets.assign(s.offsets.begin(), s.offsets.begin() + static_cast<std::ptrdiff_t>(n + 1));
  out.input_ids.assign(s.input_ids.begin(), s.input_ids.begin() + static_cast<std::ptrdiff_t>(end));
  out.token_type_ids.assign(s.token_type_ids.begin(),
                            s.token_type_ids.begin() + static_cast<std::ptrdiff_t>(end));
  out.labels.assign(s.labels.begin(), s.labels.begin() + static_cast<std::ptrdiff_t>(n));
  out.example_ids.assign(s.example_ids.begin(), s.example_ids.begin() + static_cast<std::ptrdiff_t>(n));
  return out;
}

torch::Tensor int64_tensor(const std::vector<int64_t>& v, std::vector<int64_t> shape,
                           const torch::Device& device) {
  auto cpu = torch::from_blob(const_cast<int64_t*>(v.data()), shape, torch::kInt64).clone();
  return device.is_cpu() ? cpu : cpu.to(device);
}

}  // namespace

RunData open_data(const nlohmann::json& data_section, const nlohmann::json& tokenizer_section) {
  RunData d;
  d.dataset = instantiate<DatasetFactory>(
      Kind::Dataset, data_section.at("dataset").get<std::string>(), data_section);
  d.tokenizer = instantiate<TokenizerFactory>(
      Kind::Tokenizer, tokenizer_section.at("type").get<std::string>(), tokenizer_section);
  d.train_split = data_section.at("train_split").get<std::string>();
  d.eval_split = data_section.at("eval_split").get<std::string>();
  d.padding.to_max_length = data_section.at("padding") == "max_length";
  d.padding.max_length = data_section.at("max_length");
  d.padding.pad_to_multiple_of = data_section.at("pad_to_multiple_of");
  d.padding.pad_id = d.tokenizer->special_ids().pad;
  return d;
}

std::vector<std::string> data_content_files(const RunData& data,
                                            const nlohmann::json& tokenizer_section) {
  std::vector<std::string> files = {data.dataset->split_file(data.train_split)};
  if (!data.eval_split.empty()) files.push_back(data.dataset->split_file(data.eval_split));
  std::string tok = tokenizer_section.value("path", std::string());
  if (fs::is_directory(tok)) {
    for (const auto& name : tokenizer_file_names())
      if (fs::is_regular_file(fs::path(tok) / name)) files.push_back((fs::path(tok) / name).string());
  } else if (!tok.empty()) {
    files.push_back(tok);
  }
  return files;
}

void tokenize_data(RunData& d, const nlohmann::json& data_section,
                   const std::function<void(const nlohmann::json&)>& note) {
  EncodeOptions enc;
  enc.max_length = data_section.at("max_length");
  enc.truncation = truncation_from_name(data_section.at("truncation"));
  TokenCacheOptions cache;
  cache.dir = data_section.value("cache_dir", std::string());
  cache.dataset_key = dataset_cache_key(data_section);
  cache.warn = [&note](const std::string& m) { note({{"event", "warning"}, {"message", m}}); };
  auto prepare = [&](const std::string& split, long long limit) {
    PreparedSplit p = prepare_split(*d.dataset, split, *d.tokenizer, enc, cache);
    auto tokens = std::make_shared<const TokenizedSplit>(first_examples(p.tokens, limit));
    nlohmann::json e = {{"event", "data"}, {"split", split}, {"examples", tokens->size()},
                        {"file", d.dataset->split_file(split)}, {"from_cache", p.from_cache}};
    if (!p.skipped_report.empty()) e["skipped_rows"] = p.skipped_report;
    note(e);
    return tokens;
  };
  d.train = prepare(d.train_split, data_section.at("max_train_examples"));
  if (d.eval_split.empty()) return;
  auto eval = prepare(d.eval_split, data_section.at("max_eval_examples"));
  if (eval->has_labels) d.eval = eval;
  else note({{"event", "warning"},
             {"message", fmt::format("eval split '{}' has no labels; evaluation is off", d.eval_split)}});
}

TrainBatch to_train_batch(const Batch& b, const std::string& split, const torch::Device& device) {
  TrainBatch out;
  const std::vector<int64_t> shape = {b.batch_size, b.seq_len};
  out.tensors.input_ids = int64_tensor(b.input_ids, shape, device);
  out.tensors.token_type_ids = int64_tensor(b.token_type_ids, shape, device);
  out.tensors.attention_mask = int64_tensor(b.attention_mask, shape, device);
  bool labelled = !b.labels.empty() && b.labels.front() >= 0;
  if (labelled) out.tensors.labels = int64_tensor(b.labels, {b.batch_size}, device);
  for (size_t i = 0; i < b.example_ids.size(); ++i) {
    out.example_ids.push_back(fmt::format("{}/{}", split, b.example_ids[i]));
    out.examples += b.is_padding.empty() || !b.is_padding[i];
  }
  out.tokens = b.real_tokens();
  return out;
}

SamplerConfig train_sampler_config(const nlohmann::json& data_section, uint64_t seed) {
  SamplerConfig s;
  s.kind = sampler_from_name(data_section.at("sampler"));
  s.seed = seed;
  s.batch_size = data_section.at("train_batch_size");
  return s;
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

nlohmann::json SplitBatchSource::state() const { return {{"random_order", kRandomOrderName}}; }

void SplitBatchSource::load_state(const nlohmann::json& state) {
  if (sampler_.kind == SamplerKind::Sequential) return;
  // Checkpoints from before the torch-compatible order carry no name.
  const std::string written = state.value("random_order", std::string("splitmix64"));
  if (written == kRandomOrderName) return;
  throw InputError(make_error(
      {}, "data.sampler",
      fmt::format("the checkpoint's run shuffled its data with the '{}' order, and this runner "
                  "draws the '{}' order; the rest of the epoch would visit other examples",
                  written, kRandomOrderName),
      "finish the run with the runner version that started it, or start a new run"));
}

EvalSet make_eval_set(const RunData& data, long long batch_size, const torch::Device& device) {
  EvalSet set;
  set.metrics = data.dataset->info().metrics;
  if (!data.eval) return set;
  SamplerConfig s;
  s.kind = SamplerKind::Sequential;
  s.batch_size = batch_size;
  BatchIterator it(data.eval, s, data.padding, {}, 0);
  while (std::optional<Batch> b = it.next()) set.batches.push_back(to_train_batch(*b, data.eval_split, device));
  return set;
}

}  // namespace runner
