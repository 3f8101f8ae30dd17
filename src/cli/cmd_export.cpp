// `runner export RUN_DIR [--checkpoint NAME] --to DIR`: which of a run's
// checkpoints to export and the checks on it; model/export_weights.h writes
// the Hugging Face folder.
#include "cli/commands.h"

#include "data/dataset.h"
#include "model/export_weights.h"
#include "registry/plugin.h"
#include "registry/registry.h"
#include "cli/run_names.h"
#include "run/run_dir.h"
#include "run/run_records.h"
#include "train/checkpoint_io.h"
#include "util/diagnostic.h"
#include "util/numbers.h"
#include "util/json_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace runner {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what, const std::string& hint) {
  throw InputError(make_error(SourceLocation{where, 0, 0, {}}, "", what, hint));
}

RunPaths open_run_dir(const std::string& dir) {
  RunPaths p{fs::path(dir).lexically_normal().string()};
  for (const std::string& f : {p.env(), p.recipe_resolved()})
    if (!fs::is_regular_file(f))
      fail(dir, fmt::format("not a run directory: it has no {}", fs::path(f).filename().string()),
           "pass a directory written by `runner run`: runs/<name>/<UTC time>-<id>");
  return p;
}

// The checkpoint directory the best metric last pointed at, from the newest
// checkpoint that verifies; empty when the run recorded none.
std::string best_checkpoint(const RunPaths& p) {
  auto newest = newest_valid_checkpoint(p.checkpoints(), [](const std::string&) {});
  if (!newest) return {};
  nlohmann::json best = record_object(read_json_file(*newest + "/state.json"), "best");
  return record_bool(best, "has_best", false) ? record_string(best, "checkpoint") : std::string();
}

std::string available_checkpoints(const RunPaths& p) {
  std::vector<std::string> names;
  for (const auto& dir : list_checkpoints(p.checkpoints()))
    names.push_back(fs::path(dir).filename().string());
  if (std::string best = best_checkpoint(p); !best.empty()) names.push_back("best (= " + best + ")");
  if (fs::is_regular_file(p.final_model() + "/model.safetensors")) names.push_back("final");
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

[[noreturn]] void unknown_checkpoint(const RunPaths& p, const std::string& name) {
  fail("--checkpoint", fmt::format("this run has no checkpoint \"{}\"; it has: {}", name,
                                   available_checkpoints(p)),
       "pass one of those names (a step number such as 16 works too), or leave out "
       "--checkpoint for the newest valid one");
}

// A step checkpoint by directory name, checked against its sha256 manifest.
std::string verified_step(const RunPaths& p, const std::string& dir_name, const std::string& asked) {
  std::string dir = p.checkpoints() + "/" + dir_name;
  if (!checkpoint_step(dir_name) || !fs::is_directory(dir)) unknown_checkpoint(p, asked);
  if (std::string bad = verify_checkpoint(dir); !bad.empty())
    fail(dir, "the checkpoint fails its sha256 manifest: " + bad,
         fmt::format("export another checkpoint of the run ({})", available_checkpoints(p)));
  return dir;
}

std::string newest_checkpoint(const RunPaths& p) {
  auto warn = [](const std::string& m) { std::cerr << "warning: " << m << "\n"; };
  auto newest = newest_valid_checkpoint(p.checkpoints(), warn);
  if (!newest)
    fail(p.checkpoints(), "no checkpoint of this run verifies against its manifest",
         fmt::format("name one with --checkpoint (this run has: {})", available_checkpoints(p)));
  return *newest;
}

// --checkpoint 42 names step-00000042; a number past any step names nothing.
std::optional<long long> step_number(const std::string& s) {
  std::string why;
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  return parse_integer(s, why, 0);
}

// The weight file to export: a verified step checkpoint's, or final/'s.
std::string chosen_weights(const RunPaths& p, const std::string& name) {
  if (name.empty()) return newest_checkpoint(p) + "/model.safetensors";
  if (name == "final") {
    if (!fs::is_regular_file(p.final_model() + "/model.safetensors")) unknown_checkpoint(p, name);
    return p.final_model() + "/model.safetensors";
  }
  std::string dir_name = name;
  if (name == "best") dir_name = best_checkpoint(p);
  if (auto step = step_number(name)) dir_name = checkpoint_name(*step);
  if (dir_name.empty()) unknown_checkpoint(p, name);
  return verified_step(p, dir_name, name) + "/model.safetensors";
}

// Where training read its tokenizer from: a folder, or the folder of a file.
std::string tokenizer_folder(const nlohmann::json& tokenizer_section) {
  fs::path path = record_string(tokenizer_section, "path");
  if (path.empty()) return {};
  return fs::is_directory(path) ? path.string() : path.parent_path().string();
}

// The run's dataset and model may come from plugins: load them as training did.
void load_run_plugins(const RunPaths& run, const nlohmann::json& recipe) {
  for (const auto& path : record_array(recipe, "plugins")) {
    std::string err = load_plugin(path.get<std::string>(), registry());
    if (!err.empty())
      fail(run.recipe_resolved(), "plugins: " + err,
           "the run was trained with this plugin: restore it at that path, or rebuild it there");
  }
}

}  // namespace

int cmd_export(const ParsedArgs& args) {
  if (args.get("--to").empty()) {
    std::cerr << "error: runner export needs --to DIR (the Hugging Face folder to create)\n";
    return kExitBadInput;
  }
  RunPaths run = open_run_dir(run_dir_argument(args.positional(0), std::cerr));
  nlohmann::json recipe = read_json_file(run.recipe_resolved());
  load_run_plugins(run, recipe);
  WeightsExport request;
  request.weights = chosen_weights(run, args.get("--checkpoint"));
  request.model_section = recipe.at("model");
  const nlohmann::json& data = recipe.at("data");
  const std::string dataset = data.at("dataset").get<std::string>();
  if (!registry().find(Kind::Dataset, dataset))
    fail(run.recipe_resolved(),
         fmt::format("data.dataset: unknown dataset '{}' (known datasets: {})", dataset,
                     fmt::join(registry().names(Kind::Dataset), ", ")),
         "export with the runner (and plugins) that trained the run");
  const DatasetInfo info = instantiate<DatasetFactory>(Kind::Dataset, dataset, data)->info();
  request.num_labels = info.num_labels;
  request.label_names = info.label_names;
  request.tokenizer_dir = tokenizer_folder(recipe.at("tokenizer"));
  request.to = args.get("--to");
  std::vector<std::string> files = {"config.json", "model.safetensors"};
  for (const auto& f : export_weights(request)) files.push_back(f);
  std::cout << fmt::format("exported {} to {} ({})\n", request.weights, request.to, fmt::join(files, ", "));
  return kExitOk;
}

}  // namespace runner
