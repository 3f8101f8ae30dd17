// Token classification (NER) datasets: tagged words read from CoNLL files
// ("conll") or JSONL files of {"tokens": [...], "tags": [...]} ("token_jsonl"),
// one file per split, their tags turned into sub-token labels as Transformers'
// run_ner.py does (data/token_label_alignment.h) when the split is tokenized.
#pragma once

#include "data/dataset.h"

#include <memory>
#include <string>
#include <vector>

namespace runner {

// "conll" or "token_jsonl"; options: the resolved [data] section. The label
// list is data.labels, else every tag of the train split in byte order (as
// run_ner.py sorts them), so a dataset reads its train file when made.
std::shared_ptr<const Dataset> make_token_dataset(const std::string& format, const nlohmann::json& options);

// The extension of a split file named by default: "<split>.conll", "<split>.jsonl".
std::string token_file_extension(const std::string& format);

// Validate's reading of the train and eval splits: each refusal a run would
// meet there (a tag outside the label list, a tokens/tags length mismatch,
// mixed schemes, an empty sentence), with its file and line.
Diagnostics check_tagged_splits(const std::string& format, const nlohmann::json& resolved_recipe);

}  // namespace runner
