// `runner predict --model DIR [--tokenizer DIR] --input pairs.jsonl`: the body,
// independent of the CLI. Each input line is {"text_a": ..., "text_b": ...}
// (text_b optional; "id" is copied through); each output line adds "logits"
// and the predicted "label" (id) and "label_name" (from config.json id2label),
// and with `probabilities` the softmax of the logits. A regression's line adds
// "score"; a multi-label model's "labels" and "label_names" (those above the
// threshold), and with `probabilities` one sigmoid per label.
// A CSV or TSV file (or JSONL with a column mapping) is read as training reads
// its splits (data/file_dataset.h): each output line then starts with the
// example's "row" (0-based data row), "text_a" and "text_b".
// Token classification and question answering models are predicted by
// train/predict_entities.h and train/predict_answers.h.
#pragma once

#include "data/qa_settings.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <map>
#include <string>

namespace runner {

struct PredictCommandOptions {
  std::string model;      // a Hugging Face folder: config.json + weights; or a LoRA adapter folder
  std::string base;       // the adapter folder's base model folder; empty when `model` is no adapter
  std::string tokenizer;  // folder with vocab.txt / tokenizer.json; empty = the model folder
  int max_length = 128;
  int batch_size = 32;
  std::string truncation = "longest_first";
  bool probabilities = false;       // also write "probabilities": the softmax of the logits
                                    // (multi-label: one sigmoid per label)
  double threshold = 0.5;           // multi-label: a label is predicted when its sigmoid is above this
  bool threshold_given = false;     // --threshold was passed: refused for a model that is not multi-label
  std::string input_name = "<stdin>";  // the --input file, for error locations
  // The input's format: "jsonl", "csv" or "tsv". Any but JSONL without
  // `columns` is read from the file `input_name` names.
  std::string format = "jsonl";
  // Role (text_a, text_b) -> header name, JSON key or 0-based index, as
  // data.columns; empty: text_a, and text_b where the header has one.
  std::map<std::string, std::string> columns;
  bool header = true;  // as data.header: the first CSV/TSV line names the columns
  // Token classification: a space before each word, as the run's data.add_prefix_space.
  bool add_prefix_space = false;
  // Question answering: how contexts are windowed and answers picked, as the run's [data].
  QaSettings qa;
  // The run's resolved [model] and [lora] sections when `model` is a run's
  // folder: a LoRA run's weights are read as training built the model, and
  // its adapters merged. Null otherwise.
  nlohmann::json run_model, run_lora;
};

// Returns the exit code: 0, or 2 for bad input (messages go to `err`).
int run_predict_command(const PredictCommandOptions& options, std::istream& in, std::ostream& out,
                        std::ostream& err);

}  // namespace runner
