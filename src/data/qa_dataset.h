// Extractive question answering datasets: SQuAD v1.1 / v2.0 JSON files
// ("squad_json") or JSONL files of {id, question, context, answers: {text,
// answer_start}} ("squad_jsonl"), one file per split (data/squad_rows.h),
// windowed as Transformers' run_qa.py windows them when a split is tokenized
// (data/qa_features.h).
#pragma once

#include "data/dataset.h"
#include "data/qa_features.h"

#include <memory>
#include <string>

namespace runner {

// "squad_json" or "squad_jsonl"; options: the resolved [data] section.
std::shared_ptr<const Dataset> make_qa_dataset(const std::string& format, const nlohmann::json& options);

// The extension of a split file named by default: "json", "jsonl".
std::string qa_file_extension(const std::string& format);

// A resolved [data] section's version, windows and post-processing (the
// squad datasets' options; their defaults where a key is absent).
QaSettings qa_settings_from(const nlohmann::json& data_section);

// The windows a split's questions are cut into at `max_length` (data.max_length).
QaFeatureOptions qa_feature_options(const QaSettings& settings, int max_length);

// Validate's reading of the train and eval splits: each refusal a run would
// meet there (an answer_start off its text, a v1.1 question without an
// answer, a duplicate id), with its file and place; and a doc_stride that no
// window of max_length leaves room for.
Diagnostics check_question_splits(const std::string& format, const nlohmann::json& resolved_recipe);

}  // namespace runner
