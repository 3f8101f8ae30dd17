// The data side of a run: the dataset, tokenizer and tokenized splits a
// resolved recipe describes; train/split_batch_source.h serves them as batches.
#pragma once

#include "data/batch_iterator.h"
#include "data/data_options.h"
#include "data/dataset.h"
#include "tokenizer/tokenizer.h"
#include "train/split_batch_source.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace runner {

struct RunData {
  std::shared_ptr<const Dataset> dataset;
  std::shared_ptr<const Tokenizer> tokenizer;
  std::shared_ptr<const TokenizedSplit> train;
  std::shared_ptr<const TokenizedSplit> eval;  // null when the eval split has no labels
  // The labelled splits the dataset evaluates with the eval split (MNLI's mismatched dev set).
  std::vector<std::pair<CompanionSplit, std::shared_ptr<const TokenizedSplit>>> companions;
  std::string train_split, eval_split;
  PaddingOptions padding;
};

// The dataset (data.dataset with its own options in `data_section`) and the
// tokenizer of the resolved [tokenizer] section.
RunData open_data(const DataSettings& settings, const nlohmann::json& data_section,
                  const nlohmann::json& tokenizer_section);

// The files whose content the run depends on: the train and eval split files
// (and the eval split's companions) and the tokenizer's files. Their sha256 go into env.json and are checked on resume.
std::vector<std::string> data_content_files(const RunData& data,
                                            const nlohmann::json& tokenizer_section);

// Tokenizes (or loads from the token cache) one split and keeps its first
// `limit` examples (0: all); its size and skipped rows go to `note`.
std::shared_ptr<const TokenizedSplit> tokenize_split(const RunData& data, const DataSettings& settings,
                                                     const nlohmann::json& data_section,
                                                     const std::string& split, long long limit,
                                                     const std::function<void(const nlohmann::json&)>& note);

// Tokenizes (or loads from the token cache) the train and eval splits, keeps the
// first max_*_examples, and reports each split's size and skipped rows through `note`.
void tokenize_data(RunData& data, const DataSettings& settings, const nlohmann::json& data_section,
                   const std::function<void(const nlohmann::json&)>& note);

SamplerConfig train_sampler_config(const DataSettings& settings, uint64_t seed);

// The evaluation set of the run's eval split, with its companions.
EvalSet make_eval_set(const RunData& data, const DataSettings& settings, const torch::Device& device);

// A question answering split's questions and its first `windows` windows with
// their character offsets, which an evaluation turns into answers.
std::shared_ptr<const QaEvalData> question_windows(const RunData& data, const DataSettings& settings,
                                                    const std::string& split, size_t windows);

}  // namespace runner
