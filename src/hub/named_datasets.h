// Datasets known by name beside GLUE: CoNLL-2003 (`conll2003`, read by the
// `conll` dataset) and SQuAD v1.1 and v2.0 (`squad`, `squad_v2`, read by
// `squad_json`). Each is downloaded from where Hugging Face `datasets` gets it,
// checked against a pinned sha256, and kept under its name in
// $RUNNER_CACHE/datasets/ with the publisher's file names. A folder of that name
// under the data root is used instead when it exists.
#pragma once

#include "hub/hub_settings.h"
#include "hub/repo_resolution.h"
#include "hub/source_file.h"

#include <string>
#include <vector>

namespace runner::hub {

struct NamedDataset {
  std::string name;                 // "conll2003": `runner fetch conll2003`, data.dir = "conll2003"
  std::string label;                // "CoNLL-2003": how messages name it
  std::string reader;               // the dataset component that reads the folder: "conll"
  std::vector<SourceFile> sources;  // one zip, or the split files themselves
  std::string zip;                  // the source that is a zip of the split files; "" when none
  std::vector<std::string> files;   // the split files, as the publisher names them
};

const std::vector<NamedDataset>& named_datasets();
// The dataset named `name`, or null.
const NamedDataset* find_named_dataset(const std::string& name);
// "conll2003, squad, squad_v2"
std::string named_dataset_names();

// The cached folder of `dataset`, built from its sources first when missing (an
// InputError when offline). `dataset_cache` is $RUNNER_CACHE/datasets; the
// sources come from $RUNNER_DATASET_URL/<file> when that is set (a mirror).
Resolution fetch_named_dataset(const NamedDataset& dataset, const std::string& dataset_cache,
                               const HubSettings& settings);

}  // namespace runner::hub
