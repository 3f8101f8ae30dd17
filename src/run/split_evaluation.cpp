#include "run/split_evaluation.h"

#include "data/data_options.h"
#include "data/glue_tasks.h"
#include "model/model_factory.h"
#include "model/peft_adapter.h"
#include "run/run_data.h"
#include "run/run_options.h"
#include "run/run_setup.h"
#include "train/autocast.h"
#include "train/evaluation.h"
#include "train/split_batch_source.h"
#include "train/train_options.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>

namespace runner {
namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& what, const std::string& hint) {
  throw InputError(make_error(SourceLocation{where, 0, 0, {}}, "--split", what, hint));
}

// The split's examples, limited as the run limited them.
std::shared_ptr<const TokenizedSplit> labelled_split(const RunData& d, const DataSettings& data,
                                                     const nlohmann::json& data_section,
                                                     const std::string& split,
                                                     const std::function<void(const nlohmann::json&)>& note) {
  bool eval_split = split == data.eval_split;  // the eval split's companions are limited as it is
  for (const auto& c : d.dataset->companion_splits(data.eval_split)) eval_split = eval_split || c.split == split;
  long long limit = eval_split                  ? data.max_eval_examples
                    : split == data.train_split ? data.max_train_examples
                                                : 0;
  std::shared_ptr<const TokenizedSplit> tokens;
  try {
    tokens = tokenize_split(d, data, data_section, split, limit, note);
  } catch (const InputError& e) {
    // A dataset names a split it lacks by the recipe's key for the training split;
    // here the split came from --split (or data.eval_split), so that is named.
    Diagnostic said = e.diagnostic();
    if (split != data.train_split && said.key_path == "data.train_split")
      said.key_path = split == data.eval_split ? "data.eval_split" : "--split";
    throw InputError(said);
  }
  const std::string file = d.dataset->split_file(split);
  if (tokens->size() == 0) refuse(file, fmt::format("split \"{}\" has no examples", split), "name a split that has rows");
  if (!tokens->has_labels)
    refuse(file, fmt::format("split \"{}\" has no labels, so there is nothing to score", split),
           "name a labelled split (e.g. --split dev), or write its predictions with `runner predict`");
  return tokens;
}

// A LoRA adapter folder on the recipe's model.pretrained, its base: the
// adapter's own settings build it, and its head must score the data's classes.
std::shared_ptr<TaskModel> adapter_model(const SplitEvaluation& r, const DatasetInfo& info) {
  const std::string base = r.recipe.at("model").value("pretrained", std::string());
  const std::string config = r.weights + "/adapter_config.json";
  if (base.empty())
    refuse(config, "an adapter folder is evaluated on its base model, and the recipe names none",
           "set model.pretrained to the model the adapter was trained on");
  LoadedModel loaded = load_adapter_folder(r.weights, base);
  if (loaded.model->num_labels() != model_context_of(info).num_labels)
    refuse(config,
           fmt::format("the adapter's head scores {} labels, the data has {}", loaded.model->num_labels(),
                       model_context_of(info).num_labels),
           "evaluate the adapter on the task it was trained for");
  // Run as the recipe's own model runs, so that the numbers are the run's.
  apply_model_settings(*loaded.model, r.recipe.at("model"));
  return loaded.model;
}

// The recipe's model with every parameter from `weights`: an evaluation of a
// fresh initialisation would report numbers of no trained model.
std::shared_ptr<TaskModel> trained_model(const SplitEvaluation& r, const DatasetInfo& info) {
  if (is_adapter_folder(r.weights)) return adapter_model(r, info);
  LoadedModel loaded = build_model(r.recipe.at("model"), model_context_of(info), r.weights,
                                   lora_settings_from(r.recipe.value("lora", nlohmann::json::object())));
  loaded.report.require_complete(
      "evaluate a checkpoint or final/ of a run of this recipe, or a folder its [model] describes");
  return loaded.model;
}

// The recipe's [data] reading r.input as its eval split "input", whole: the
// file datasets' options of the recipe (a file dataset's own, or what a GLUE
// task is: its label count, label names, problem type and metrics), with the
// format, columns and header the request names.
nlohmann::json input_data_section(const SplitEvaluation& r) {
  namespace fs = std::filesystem;
  nlohmann::json data = r.recipe.at("data");
  const std::string dataset = data.value("dataset", std::string());
  if (dataset.rfind("glue/", 0) == 0) {
    GlueTask task = glue_task(dataset.substr(5));
    data["num_labels"] = task.info.num_labels;
    data["problem_type"] = problem_type_name(task.info.problem_type);
    data["metrics"] = task.info.metrics;
    data["main_metric"] = task.info.main_metric;
    data["labels"] = task.label_ids;
    data["columns"] = task.info.is_pair ? nlohmann::json{{"text_a", "text_a"}, {"text_b", "text_b"}, {"label", "label"}}
                                        : nlohmann::json{{"text_a", "text_a"}, {"label", "label"}};
  }
  if (!r.columns.empty()) data["columns"] = r.columns;
  if (r.header) data["header"] = *r.header;
  const fs::path file = fs::absolute(r.input);
  data["dataset"] = r.input_format;
  data["dir"] = file.parent_path().string();
  data["files"] = {{"input", file.filename().string()}};
  data["eval_split"] = "input";
  data["max_eval_examples"] = 0;
  return data;
}

}  // namespace

nlohmann::json evaluate_split(const SplitEvaluation& r,
                              const std::function<void(const nlohmann::json&)>& note) {
  const nlohmann::json data_section = r.input.empty() ? r.recipe.at("data") : input_data_section(r);
  const DataSettings data = data_settings_from(data_section);
  const std::string split = !r.input.empty() ? "input" : r.split.empty() ? data.eval_split : r.split;
  if (split.empty())
    refuse("--split", "the recipe evaluates no split (data.eval_split is empty)", "name one: --split dev");
  RunData d = open_data(data, data_section, r.recipe.at("tokenizer"));
  auto tokens = labelled_split(d, data, data_section, split, note);
  const DatasetInfo& info = d.dataset->info();
  const RunSettings run = run_settings_from(r.recipe.at("run"));
  apply_thread_setting(run);  // the run's threads sum its GEMMs in the same order
  apply_determinism(run);
  const torch::Device device = pick_device(run);
  const TrainerConfig train = trainer_config_from(r.recipe.at("train"));
  auto model = trained_model(r, info);
  model->to(device);
  model->eval();
  EvalSet set = make_eval_set(tokens, split, info, d.padding, data.eval_batch_size, device);
  if (info.qa) set.qa = question_windows(d, data, split, tokens->size());
  torch::NoGradGuard no_grad;
  ForwardOptions options;
  options.label_smoothing = train.label_smoothing;  // the loss the run reported
  MetricWarnings warnings([&note](const std::string& m) { note({{"event", "warning"}, {"message", m}}); });
  auto results_of = [&](const std::vector<TrainBatch>& batches) {
    EvalTally tally(set);
    for (const TrainBatch& b : batches) {
      AutocastGuard autocast(train.precision, device.type());  // per forward, as the trainer enters it
      tally.add(model->forward(b.tensors, options), b);
    }
    return tally.results(set.metrics);
  };
  nlohmann::json result = {{"split", r.input.empty() ? split : r.input}};
  result.update(results_of(set.batches));
  // The splits the dataset evaluates with this one (MNLI's mismatched dev set), as the run records them.
  for (const auto& c : d.dataset->companion_splits(split)) {
    auto companion = labelled_split(d, data, data_section, c.split, note);
    add_companion_results(
        result, results_of(make_eval_set(companion, c.split, info, d.padding, data.eval_batch_size, device).batches),
        c.suffix);
  }
  return result;
}

}  // namespace runner
