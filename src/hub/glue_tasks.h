// The GLUE tasks the runner knows by name: each task's folder, the files it
// splits into, and the sources it is built from, with their pinned checksums.
// One table, read by the download (hub/glue_download.cpp), `runner fetch`
// and the datasets (data/glue_datasets.cpp).
#pragma once

#include "hub/source_file.h"

#include <string>
#include <vector>

namespace runner::hub {

struct GlueTaskFiles {
  std::string task;                      // "mnli": data.dataset = "glue/mnli"
  std::string folder;                    // "MNLI": under the data root and the dataset cache
  std::vector<std::string> split_files;  // "train.tsv", "dev_matched.tsv", ...: the split is the stem
  std::vector<SourceFile> sources;       // MRPC's three text files, or the task's one zip
};

// CoLA, SST-2, MRPC, QQP, STS-B, MNLI, QNLI, RTE, WNLI, in GLUE's order.
const std::vector<GlueTaskFiles>& glue_tasks();
// The task named "mnli" (glue/mnli without its prefix), or null.
const GlueTaskFiles* find_glue_task(const std::string& task);

}  // namespace runner::hub
