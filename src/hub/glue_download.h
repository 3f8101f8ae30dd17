// GLUE tasks by name from their original files, as GLUE's download script and
// Hugging Face `datasets` get them: MRPC from msr_paraphrase_{train,test}.txt
// and mrpc_dev_ids.tsv (split as GLUE splits them), the others from the task's
// zip (hub/glue_tasks.h). Each source is checked against a pinned checksum, and
// the task's split files are kept under $RUNNER_CACHE/datasets/glue/<FOLDER>/.
#pragma once

#include "hub/hub_settings.h"
#include "hub/repo_resolution.h"

#include <optional>
#include <string>
#include <vector>

namespace runner::hub {

// "mrpc" for "glue/MRPC", "stsb" for "glue/STS-B" (the data-root folders); else nullopt.
std::optional<std::string> glue_task_of_folder(const std::string& folder);

// The cached folder of a GLUE task, built from its sources first when missing
// (an InputError when offline). `dataset_cache` is $RUNNER_CACHE/datasets.
Resolution fetch_glue_task(const std::string& task, const std::string& dataset_cache, const HubSettings& settings);

// GLUE's format_mrpc: train.tsv and dev.tsv split by the dev ids, test.tsv re-indexed.
void build_mrpc(const std::string& train_txt, const std::string& test_txt, const std::string& dev_ids_tsv,
                const std::string& out_dir);
// <folder>/<file> of the zip for each of `files`, into out_dir.
void extract_glue_zip(const std::string& zip_path, const std::string& folder, const std::vector<std::string>& files,
                      const std::string& out_dir);

// "glue/cola, glue/sst2, ...": the names `runner fetch` and data.dataset take.
std::string glue_task_names();

}  // namespace runner::hub
