// What each GLUE task is to a run: its text and label columns, its labels, its
// problem type and the metrics GLUE reports for it. The files each task comes
// in are hub/glue_tasks.h's.
#pragma once

#include "data/dataset.h"
#include "data/table_rows.h"

#include <map>
#include <string>
#include <vector>

namespace runner {

struct GlueTask {
  std::string name;                          // "mnli"
  std::string text_a, text_b, label;         // header names; text_b empty for single sentences
  bool headerless_labelled = false;          // CoLA: train/dev have no header ...
  ColumnLayout headerless;                   // ... and these columns
  std::map<std::string, int64_t> label_ids;  // label text -> id; empty: the file holds ids (or scores)
  DatasetInfo info;
  // MNLI: evaluating `companion_of` also evaluates `companion` (dev_mismatched).
  std::string companion_of;
  CompanionSplit companion;
};

// The task "cola", "sst2", ... (every name of hub::glue_tasks()).
GlueTask glue_task(const std::string& name);

// The registry's line for each task: "GLUE CoLA acceptability (MCC)".
std::string glue_task_doc(const std::string& name);

}  // namespace runner
