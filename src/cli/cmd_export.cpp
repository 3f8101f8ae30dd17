// `runner export RUN_DIR [--checkpoint NAME] --to DIR`: which of a run's
// checkpoints to export and the checks on it; model/export_weights.h writes
// the Hugging Face folder.
#include "cli/commands.h"

#include "data/dataset.h"
#include "model/export_weights.h"
#include "model/tokenizer_files.h"
#include "model/model_context.h"
#include "registry/registry.h"
#include "cli/run_checkpoints.h"
#include "cli/run_names.h"
#include "run/run_dir.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>


namespace runner {

int cmd_export(const ParsedArgs& args) {
  if (args.get("--to").empty()) {
    std::cerr << "error: runner export needs --to DIR (the Hugging Face folder to create)\n";
    return kExitBadInput;
  }
  RunPaths run = open_run_dir(run_dir_argument(args.positional(0), std::cerr));
  nlohmann::json recipe = read_json_file(run.recipe_resolved());
  load_run_plugins(run, recipe);
  WeightsExport request;
  request.weights = result_weights(run, args.get("--checkpoint"));
  request.model_section = recipe.at("model");
  const nlohmann::json& data = recipe.at("data");
  require_known_dataset(run, recipe, "export");
  const DatasetInfo info = instantiate<DatasetFactory>(Kind::Dataset, data.at("dataset").get<std::string>(), data)->info();
  const ModelContext context = model_context_of(info);
  request.num_labels = context.num_labels;
  request.label_names = context.label_names;
  request.problem_type = context.problem_type;
  request.head = context.head;
  request.tokenizer_dir = tokenizer_source(recipe.at("tokenizer"));
  request.to = args.get("--to");
  request.lora_section = recipe.value("lora", nlohmann::json::object());
  request.merge = args.has("--merge");
  const std::vector<std::string> files = export_weights(request);
  std::cout << fmt::format("exported {} to {} ({})\n", request.weights, request.to, fmt::join(files, ", "));
  return kExitOk;
}

}  // namespace runner
