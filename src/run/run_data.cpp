#include "run/run_data.h"

#include "data/data_options.h"
#include "data/qa_dataset.h"

#include "data/token_cache.h"
#include "model/export.h"
#include "registry/registry.h"
#include "tokenizer/encoding.h"
#include "train/qa_evaluation.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace runner {
namespace {

// The dataset's name and its own options: a change there re-tokenizes, a change
// of batch size or sampler does not.
std::string dataset_cache_key(const nlohmann::json& data_section, const DataSettings& settings) {
  std::string name = data_section.at("dataset").get<std::string>();
  nlohmann::json own = nlohmann::json::object();
  if (const Component* c = registry().find(Kind::Dataset, name))
    for (const auto& o : c->spec.options)
      if (data_section.contains(o.name)) own[o.name] = data_section[o.name];
  own["on_bad_row"] = data_options().encode(settings).at("on_bad_row");
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
  out.target_width = s.target_width;
  out.targets.assign(s.targets.begin(), s.targets.begin() + static_cast<std::ptrdiff_t>(n * static_cast<size_t>(s.target_width)));
  out.example_ids.assign(s.example_ids.begin(), s.example_ids.begin() + static_cast<std::ptrdiff_t>(n));
  if (!s.token_labels.empty())
    out.token_labels.assign(s.token_labels.begin(), s.token_labels.begin() + static_cast<std::ptrdiff_t>(end));
  out.truncated = s.truncated;  // of the whole split: which of the first n were cut is not kept
  return out;
}

}  // namespace

// Words given one by one to a tokenizer that reads a leading space as other
// pieces (byte-level BPE: RoBERTa's "Ġword") are not tokenized as a sentence
// tokenizes them: Transformers refuses such pre-split words without
// add_prefix_space, and run_ner.py sets it for RoBERTa.
static void require_word_prefix(const Dataset& dataset, const Tokenizer& tokenizer, const nlohmann::json& data) {
  if (dataset.info().problem_type != ProblemType::TokenClassification || data.value("add_prefix_space", false)) return;
  for (const char* word : {"the", "word", "a"}) {
    std::vector<int32_t> alone, spaced;
    tokenizer.tokenize(word, alone);
    tokenizer.tokenize(std::string(" ") + word, spaced);
    if (alone == spaced) continue;
    throw InputError(make_error(
        {}, "data.add_prefix_space",
        fmt::format("the tokenizer reads \"{}\" and \" {}\" as different pieces (byte-level BPE, as RoBERTa's): "
                    "words tokenized one by one without a space before them are not the pieces a sentence has",
                    word, word),
        "set data.add_prefix_space = true, as run_ner.py does for RoBERTa"));
  }
}

RunData open_data(const DataSettings& settings, const nlohmann::json& data_section,
                  const nlohmann::json& tokenizer_section) {
  RunData d;
  d.dataset = instantiate<DatasetFactory>(
      Kind::Dataset, data_section.at("dataset").get<std::string>(), data_section);
  d.tokenizer = instantiate<TokenizerFactory>(
      Kind::Tokenizer, tokenizer_section.at("type").get<std::string>(), tokenizer_section);
  d.train_split = settings.train_split;
  d.eval_split = settings.eval_split;
  d.padding.to_max_length = settings.padding == PaddingMode::MaxLength;
  d.padding.max_length = settings.max_length;
  d.padding.pad_to_multiple_of = settings.pad_to_multiple_of;
  d.padding.pad_id = d.tokenizer->special_ids().pad;
  require_word_prefix(*d.dataset, *d.tokenizer, data_section);
  return d;
}

std::vector<std::string> data_content_files(const RunData& data,
                                            const nlohmann::json& tokenizer_section) {
  std::vector<std::string> files = {data.dataset->split_file(data.train_split)};
  if (!data.eval_split.empty()) {
    files.push_back(data.dataset->split_file(data.eval_split));
    for (const auto& c : data.dataset->companion_splits(data.eval_split))
      files.push_back(data.dataset->split_file(c.split));
  }
  std::string tok = tokenizer_section.value("path", std::string());
  if (fs::is_directory(tok)) {
    for (const auto& name : tokenizer_file_names())
      if (fs::is_regular_file(fs::path(tok) / name)) files.push_back((fs::path(tok) / name).string());
  } else if (!tok.empty()) {
    files.push_back(tok);
  }
  return files;
}

// An empty split trains nothing, and an empty evaluation would name a "best"
// checkpoint from no examples: both are refused before any step.
static void require_examples(const Dataset& dataset, const std::string& split,
                             const TokenizedSplit& tokens, const std::string& key) {
  if (tokens.size() > 0) return;
  throw InputError(make_error(SourceLocation{dataset.split_file(split), 0, 0, {}}, key,
                              fmt::format("split \"{}\" has no examples", split),
                              key == "data.eval_split"
                                  ? "give it labelled rows, or set data.eval_split = \"\" to train without evaluation"
                                  : "give it rows, or point data.train_split at a split that has them"));
}

std::shared_ptr<const TokenizedSplit> tokenize_split(const RunData& d, const DataSettings& settings,
                                                     const nlohmann::json& data_section,
                                                     const std::string& split, long long limit,
                                                     const std::function<void(const nlohmann::json&)>& note) {
  EncodeOptions enc;
  enc.max_length = settings.max_length;
  enc.truncation = settings.truncation;
  TokenCacheOptions cache;
  cache.dir = settings.cache_dir;
  cache.dataset_key = dataset_cache_key(data_section, settings);
  cache.warn = [&note](const std::string& m) { note({{"event", "warning"}, {"message", m}}); };
  PreparedSplit p = prepare_split(*d.dataset, split, *d.tokenizer, enc, cache);
  auto tokens = std::make_shared<const TokenizedSplit>(first_examples(p.tokens, limit));
  nlohmann::json e = {{"event", "data"}, {"split", split}, {"examples", tokens->size()},
                      {"file", d.dataset->split_file(split)}, {"from_cache", p.from_cache}};
  if (!p.skipped_report.empty()) e["skipped_rows"] = p.skipped_report;
  if (tokens->truncated > 0) e["truncated_sentences"] = tokens->truncated;
  note(e);
  if (tokens->truncated > 0)
    note({{"event", "warning"},
          {"message", fmt::format("{} sentences of split '{}' are longer than data.max_length = {}: their last "
                                  "words are cut, neither trained nor scored (raise max_length, or set "
                                  "data.long_sentences = \"refuse\" to be told which)",
                                  tokens->truncated, split, settings.max_length)}});
  return tokens;
}

void tokenize_data(RunData& d, const DataSettings& settings, const nlohmann::json& data_section,
                   const std::function<void(const nlohmann::json&)>& note) {
  d.train = tokenize_split(d, settings, data_section, d.train_split, settings.max_train_examples, note);
  require_examples(*d.dataset, d.train_split, *d.train, "data.train_split");
  if (d.eval_split.empty()) return;
  auto eval = tokenize_split(d, settings, data_section, d.eval_split, settings.max_eval_examples, note);
  require_examples(*d.dataset, d.eval_split, *eval, "data.eval_split");
  if (!eval->has_labels) {
    note({{"event", "warning"},
          {"message", fmt::format("eval split '{}' has no labels; evaluation is off", d.eval_split)}});
    return;
  }
  d.eval = eval;
  for (const auto& c : d.dataset->companion_splits(d.eval_split)) {
    auto tokens = tokenize_split(d, settings, data_section, c.split, settings.max_eval_examples, note);
    require_examples(*d.dataset, c.split, *tokens, "data.eval_split");
    if (tokens->has_labels) d.companions.emplace_back(c, tokens);
  }
}

SamplerConfig train_sampler_config(const DataSettings& settings, uint64_t seed) {
  SamplerConfig s;
  s.kind = settings.sampler;
  s.seed = seed;
  s.batch_size = settings.train_batch_size;
  return s;
}

std::shared_ptr<const QaEvalData> question_windows(const RunData& data, const DataSettings& settings,
                                                    const std::string& split_name, size_t windows) {
  const SplitData split = data.dataset->load_split(split_name);
  const QaSettings& qa = *data.dataset->info().qa;
  // The windows the token cache holds, made again with their offsets, which it does not keep.
  const std::vector<QaFeature> features =
      qa_features(*data.tokenizer, split.questions, qa_feature_options(qa, settings.max_length), split.file);
  return qa_eval_data(split.questions, features, windows, qa);
}

EvalSet make_eval_set(const RunData& data, const DataSettings& settings,
                      const torch::Device& device) {
  EvalSet set = make_eval_set(data.eval, data.eval_split, data.dataset->info(), data.padding,
                              settings.eval_batch_size, device);
  if (data.eval && data.dataset->info().qa) set.qa = question_windows(data, settings, data.eval_split, data.eval->size());
  for (const auto& [companion, tokens] : data.companions)
    set.companions.push_back({companion.suffix, make_eval_set(tokens, companion.split, data.dataset->info(),
                                                              data.padding, settings.eval_batch_size, device)
                                                    .batches});
  return set;
}

}  // namespace runner
