// GLUE tasks by name from their original files, as GLUE's download script and
// Hugging Face `datasets` get them: MRPC from msr_paraphrase_{train,test}.txt
// and mrpc_dev_ids.tsv (split as GLUE splits them), SST-2 from SST-2.zip. Each
// source is checked against a pinned checksum, and the task's train/dev/test.tsv
// are kept under $RUNNER_CACHE/datasets/glue/<TASK>/.
#pragma once

#include "hub/hub_settings.h"
#include "hub/repo_resolution.h"

#include <optional>
#include <string>

namespace runner::hub {

// "mrpc" for "glue/MRPC", "sst2" for "glue/SST-2" (the data-root folders); else nullopt.
std::optional<std::string> glue_task_of_folder(const std::string& folder);

// The cached folder of a GLUE task, built from its sources first when missing
// (an InputError when offline). `dataset_cache` is $RUNNER_CACHE/datasets.
Resolution fetch_glue_task(const std::string& task, const std::string& dataset_cache, const HubSettings& settings);

// GLUE's format_mrpc: train.tsv and dev.tsv split by the dev ids, test.tsv re-indexed.
void build_mrpc(const std::string& train_txt, const std::string& test_txt, const std::string& dev_ids_tsv,
                const std::string& out_dir);
// SST-2/{train,dev,test}.tsv of the zip, into out_dir.
void extract_sst2(const std::string& zip_path, const std::string& out_dir);

}  // namespace runner::hub
