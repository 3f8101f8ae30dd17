// `runner predict --model DIR [--tokenizer DIR] --input pairs.jsonl`: the body,
// independent of the CLI. Each input line is {"text_a": ..., "text_b": ...}
// (text_b optional; "id" is copied through); each output line adds "logits"
// and the predicted "label" (id) and "label_name" (from config.json id2label),
// and with `probabilities` the softmax of the logits. A regression's line adds
// "score"; a multi-label model's "labels" and "label_names" (those above the
// threshold), and with `probabilities` one sigmoid per label.
#pragma once

#include <iosfwd>
#include <string>

namespace runner {

struct PredictCommandOptions {
  std::string model;      // a Hugging Face folder: config.json + weights
  std::string tokenizer;  // folder with vocab.txt / tokenizer.json; empty = the model folder
  int max_length = 128;
  int batch_size = 32;
  std::string truncation = "longest_first";
  bool probabilities = false;       // also write "probabilities": the softmax of the logits
                                    // (multi-label: one sigmoid per label)
  double threshold = 0.5;           // multi-label: a label is predicted when its sigmoid is above this
  std::string input_name = "<stdin>";  // the --input file, for error locations
};

// Returns the exit code: 0, or 2 for bad input (messages go to `err`).
int run_predict_command(const PredictCommandOptions& options, std::istream& in, std::ostream& out,
                        std::ostream& err);

}  // namespace runner
