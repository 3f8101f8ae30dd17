// A dataset folder built from downloaded source files, each checked against a
// pinned checksum, and kept in the dataset cache: the GLUE tasks
// (hub/glue_download.h) and the datasets of hub/named_datasets.h. The folder is
// built beside its place and renamed into it, so a reader sees all of it or none.
#pragma once

#include "hub/hub_settings.h"
#include "hub/repo_resolution.h"
#include "hub/source_file.h"

#include <functional>
#include <string>
#include <vector>

namespace runner::hub {

struct DatasetFolderPlan {
  std::string name;                      // "glue/mrpc", "conll2003": what `runner fetch` takes
  std::string label;                     // "GLUE", "CoNLL-2003": how messages name the sources
  std::string dir;                       // the folder in the dataset cache
  std::vector<std::string> split_files;  // all present: the folder is complete
  std::vector<SourceFile> sources;
  std::string mirror_variable;           // RUNNER_GLUE_URL: replaces every source's folder
  // Turns the downloaded sources (in sources_dir) into the split files (in out_dir).
  std::function<void(const std::string& sources_dir, const std::string& out_dir)> build;
};

// The folder of `plan`, built first when incomplete (an InputError offline, or
// when a source fails its checksum: then nothing is kept). One process builds
// it at a time; the others wait and find it built.
Resolution fetch_dataset_folder(const DatasetFolderPlan& plan, const HubSettings& settings);

// Each zip entry of `members` (entry name, file name) written to out_dir/<file name>.
void extract_zip_members(const std::string& zip_path,
                         const std::vector<std::pair<std::string, std::string>>& members,
                         const std::string& out_dir);

}  // namespace runner::hub
