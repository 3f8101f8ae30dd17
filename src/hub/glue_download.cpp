#include "hub/glue_download.h"

#include "hub/dataset_download.h"
#include "hub/glue_tasks.h"
#include "util/diagnostic.h"

#include <filesystem>

namespace runner::hub {
namespace fs = std::filesystem;

std::optional<std::string> glue_task_of_folder(const std::string& folder) {
  for (const auto& t : glue_tasks())
    if (folder == "glue/" + t.folder) return t.task;
  return std::nullopt;
}

Resolution fetch_glue_task(const std::string& name, const std::string& dataset_cache, const HubSettings& s) {
  const GlueTaskFiles* task = find_glue_task(name);
  if (!task)
    throw InputError(make_error(SourceLocation{{}, 0, 0, "glue/" + name}, "", "GLUE has no task \"" + name + "\"",
                                "name one of " + glue_task_names()));
  DatasetFolderPlan plan;
  plan.name = "glue/" + name;
  plan.label = "GLUE";
  plan.dir = (fs::path(dataset_cache) / "glue" / task->folder).string();
  plan.split_files = task->split_files;
  plan.sources = task->sources;
  plan.mirror_variable = "RUNNER_GLUE_URL";
  plan.build = [task](const std::string& sources, const std::string& out) {
    if (task->task == "mrpc")
      build_mrpc(sources + "/msr_paraphrase_train.txt", sources + "/msr_paraphrase_test.txt",
                 sources + "/mrpc_dev_ids.tsv", out);
    else
      extract_glue_zip(sources + "/" + task->sources.front().name, task->folder, task->split_files, out);
  };
  return fetch_dataset_folder(plan, s);
}

std::string glue_task_names() {
  std::string out;
  for (const auto& t : glue_tasks()) out += (out.empty() ? "glue/" : ", glue/") + t.task;
  return out;
}

}  // namespace runner::hub
