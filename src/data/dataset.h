// Datasets: labelled text examples read from files, split by name
// ("train", "dev", "test"), plus what the trainer must know about the task.
#pragma once

#include "data/qa_settings.h"
#include "data/token_label_alignment.h"
#include "registry/problem_type.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct Example {
  std::string text_a;
  std::optional<std::string> text_b;
  int64_t label = -1;  // -1: the split has no labels (GLUE test)
  // Regression: the one target value. Multi-label: 0/1 for each of num_labels
  // labels. Empty for single-label classification (`label` holds the class).
  std::vector<float> targets;
  int64_t id = 0;      // 0-based data row in its file (header not counted)
};

// A row left out because data.on_bad_row = "skip"; reported in the run log.
struct SkippedRow {
  int line = 0;  // 1-based line in the file
  std::string reason;
};

struct SplitData {
  std::string split;  // "train", "dev", ...
  std::string file;   // the absolute path it was read from
  std::vector<Example> examples;
  std::vector<SkippedRow> skipped;
  bool has_labels = true;
  int64_t target_width = 0;  // floats per example in Example::targets; 0: class ids
  // Token classification: the tagged sentences (`examples` stays empty) and
  // how their tags become sub-token labels when the split is tokenized.
  std::vector<TaggedSentence> sentences;
  std::optional<SentenceLabelling> labelling;
  // Question answering: the questions (`examples` stays empty), windowed as
  // run_qa.py windows them when the split is tokenized.
  std::vector<QaExample> questions;
  std::optional<QaSettings> qa;
};

struct DatasetInfo {
  int num_labels = 2;
  std::vector<std::string> label_names;  // index = label id
  std::vector<std::string> metrics;      // metric component names: "accuracy", "f1", "mcc"
  std::string main_metric;               // one of `metrics`; selects the best checkpoint
  bool is_pair = false;                  // examples carry text_b
  ProblemType problem_type = ProblemType::SingleLabel;
  double threshold = 0.5;  // multi-label: a label is predicted when its sigmoid exceeds this
  std::optional<QaSettings> qa;  // question answering's windows and post-processing
};

// Floats each example's target holds: 1 for regression, one per label for
// multi-label, 2 for a question answering window (its answer's start and end
// token), 0 for single-label (a class id).
int64_t target_width(const DatasetInfo& info);

// A split evaluated beside the eval split, its record's keys carrying `suffix`:
// MNLI's mismatched dev set beside the matched one, as "accuracy_mm".
struct CompanionSplit {
  std::string split;
  std::string suffix;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual const DatasetInfo& info() const = 0;
  // The file a split is read from; throws InputError when the split is unknown.
  virtual std::string split_file(const std::string& split) const = 0;
  // Reads a whole split. Malformed rows throw InputError (file:line), or are
  // skipped and listed in SplitData::skipped when on_bad_row = "skip".
  virtual SplitData load_split(const std::string& split) const = 0;
  // The splits evaluated whenever `eval_split` is (none for most datasets).
  virtual std::vector<CompanionSplit> companion_splits(const std::string& eval_split) const {
    (void)eval_split;
    return {};
  }
};

// options: the resolved [data] section (section options plus the dataset's own).
using DatasetFactory =
    std::function<std::shared_ptr<const Dataset>(const nlohmann::json& options)>;

// One line for the run log: "skipped 2 malformed rows of train.tsv: lines 5, 9".
std::string describe_skipped(const SplitData& split);

class Registry;
void register_datasets(Registry& r);  // glue/<task> for each GLUE task, tsv, csv, jsonl

// What validate refuses that a run of the recipe would refuse at its data load
// or first evaluation: metrics unknown or unfit for the dataset's problem type,
// a metric_for_best the dataset does not compute. Any dataset's component may
// use it as its recipe_check (the built-in ones do).
Diagnostics check_dataset_metrics(const nlohmann::json& resolved_recipe);

}  // namespace runner
