// `runner evaluate`: a trained model's loss and metrics on one labelled split of
// the dataset its recipe names, tokenized, batched and tallied as the run's own
// evaluations are (train/evaluation.h), so that a run's final/ evaluated on its
// eval split reports what the run reported.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace runner {

struct SplitEvaluation {
  // A resolved recipe (a run's recipe.resolved.json, or a recipe given with
  // --recipe): [data], [tokenizer], [model], run.device and train.precision.
  nlohmann::json recipe;
  std::string weights;  // a model.safetensors file or a model folder, for the recipe's [model]
  std::string split;    // empty: the recipe's data.eval_split
  // A labelled CSV, TSV or JSONL file scored in place of a split, read as the
  // file datasets read theirs (data.columns, header, labels ... of the recipe
  // when its dataset is one; a GLUE task's labels, problem type and metrics).
  std::string input;
  std::string input_format;                    // "csv", "tsv" or "jsonl"
  std::map<std::string, std::string> columns;  // role -> column; empty: the recipe's data.columns
  std::optional<bool> header;                  // unset: the recipe's data.header (else true)
};

// {"split", "examples", "loss", <metric>...}. The recipe's limit of the split
// (data.max_eval_examples or max_train_examples) applies, as in the run.
// Progress and warnings go to `note` as run events.
nlohmann::json evaluate_split(const SplitEvaluation& request,
                              const std::function<void(const nlohmann::json&)>& note);

}  // namespace runner
