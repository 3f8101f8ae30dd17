#include "model/export.h"

#include "model/base_weights.h"
#include "model/checkpoint.h"
#include "model/export_weights.h"
#include "model/lora_export.h"
#include "model/lora_merge.h"
#include "model/model_factory.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;

namespace runner {

std::vector<std::string> export_hf_folder(TaskModel& model, const std::string& dir,
                                          const std::string& tokenizer) {
  const auto files = tokenizer_files(tokenizer);
  if (!tokenizer.empty() && files.empty())
    throw InputError(make_error(SourceLocation{tokenizer, 0, 0, {}}, "",
                                "no tokenizer files (vocab.txt, tokenizer.json, ...) in the folder",
                                "point the tokenizer at the folder the model was trained with"));
  save_pretrained(model, dir);
  return copy_tokenizer_files(files, dir);
}

namespace {

const char* kRunCheckpoint = "export a checkpoint written by this run (its recipe's [model] built these weights)";

// An export must carry the trained weights, never a fresh initialisation.
std::shared_ptr<TaskModel> load_all_weights(const WeightsExport& r) {
  LoadedModel loaded =
      build_model(r.model_section, ModelContext{r.num_labels, r.label_names, r.problem_type, r.head}, r.weights);
  loaded.report.require_complete(kRunCheckpoint);
  return loaded.model;
}

// A LoRA run's model as training built it (the pretrained weights, the
// adapters, what was newly initialised and so trains whole), then the run's
// tensors over it.
LoadedModel load_adapted(const WeightsExport& r) {
  const ModelContext context{r.num_labels, r.label_names, r.problem_type, r.head};
  LoadedModel built = build_model(r.model_section, context, {}, lora_settings_from(r.lora_section));
  load_run_weights(*built.model, r.weights).require_complete(kRunCheckpoint);
  return built;
}

// PEFT's task type for the model's head: "TOKEN_CLS", "QUESTION_ANS" or "SEQ_CLS".
std::string peft_task_type(TaskModel& model) {
  switch (task_head_of(model.hf_config())) {
    case TaskHead::TokenClassification: return "TOKEN_CLS";
    case TaskHead::QuestionAnswering: return "QUESTION_ANS";
    case TaskHead::SequenceClassification: break;
  }
  return "SEQ_CLS";
}

std::vector<std::string> write_hf_folder(TaskModel& model, const WeightsExport& r, const std::string& dir) {
  std::vector<std::string> files = {"config.json", "model.safetensors"};
  for (const auto& f : export_hf_folder(model, dir, r.tokenizer_dir)) files.push_back(f);
  return files;
}

// Writes the folder's files into `dir`; returns their names.
std::vector<std::string> write_export(const WeightsExport& r, const std::string& dir) {
  if (r.merge && !exports_adapter(r))
    throw InputError(make_error({}, "--merge",
                                "the run trained no LoRA adapters, so there is nothing to merge",
                                "drop --merge: `runner export RUN --to DIR` writes the whole model"));
  if (!exports_adapter(r)) return write_hf_folder(*load_all_weights(r), r, dir);
  LoadedModel built = load_adapted(r);
  if (r.merge) {
    const MergeCheck check = merge_and_compare(*built.model, [](TaskModel& m) { merge_lora(m); });
    if (!check.passed())
      throw InputError(make_error(
          {}, "--merge",
          fmt::format("the merged model's logits differ from the adapter model's by {:.3g} on a fixed batch, "
                      "more than float32 rounding allows ({:.3g})",
                      check.difference, check.bound),
          "export without --merge: PEFT loads the adapter folder, and its merge_and_unload() merges it"));
    return write_hf_folder(*built.model, r, dir);
  }
  AdapterExport a{lora_settings_from(r.lora_section), built.lora, r.model_section.value("pretrained", std::string()),
                  peft_task_type(*built.model)};
  write_peft_adapter(*built.model, a, dir);
  std::vector<std::string> files = {"adapter_config.json", "adapter_model.safetensors"};
  for (const auto& name : copy_tokenizer_files(tokenizer_files(r.tokenizer_dir), dir)) files.push_back(name);
  return files;
}

bool is_empty_folder(const fs::path& p) { return fs::is_directory(p) && fs::is_empty(p); }

}  // namespace

bool exports_adapter(const WeightsExport& r) { return lora_settings_from(r.lora_section).enabled; }

std::vector<std::string> export_weights(const WeightsExport& r) {
  fs::path to = fs::absolute(r.to).lexically_normal();
  if (to.filename().empty()) to = to.parent_path();  // "out/" names "out"
  if (fs::exists(to) && !is_empty_folder(to))
    throw InputError(make_error(SourceLocation{r.to, 0, 0, {}}, "",
                                "the destination exists and is not an empty folder",
                                "pick a new --to folder, or remove this one"));
  fs::path tmp = to.parent_path() / fmt::format(".{}.tmp-{}", to.filename().string(), ::getpid());
  fs::remove_all(tmp);
  try {
    auto files = write_export(r, tmp.string());
    fs::rename(tmp, to);  // replaces `to` only when it is an empty folder
    return files;
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw;
  }
}

}  // namespace runner
