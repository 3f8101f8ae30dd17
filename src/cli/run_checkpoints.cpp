#include "cli/run_checkpoints.h"

#include "registry/plugin.h"
#include "registry/registry.h"
#include "run/run_dir.h"
#include "train/checkpoint_io.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/numbers.h"
#include "util/utf8.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <optional>

namespace fs = std::filesystem;

namespace runner {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what, const std::string& hint) {
  throw InputError(make_error(SourceLocation{where, 0, 0, {}}, "", what, hint));
}

// The checkpoint directory the best metric last pointed at, from the newest
// checkpoint that verifies; empty when the run recorded none, or recorded
// something that is no checkpoint's name (an edited "../elsewhere").
std::string best_checkpoint(const RunPaths& p) {
  auto newest = newest_valid_checkpoint(p.checkpoints(), [](const std::string&) {});
  if (!newest) return {};
  nlohmann::json best = record_object(read_json_file(*newest + "/state.json"), "best");
  std::string name = record_bool(best, "has_best", false) ? record_string(best, "checkpoint") : std::string();
  return checkpoint_step(name) && name == checkpoint_name(*checkpoint_step(name)) ? name : std::string();
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
         fmt::format("name another checkpoint of the run ({})", available_checkpoints(p)));
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

}  // namespace

RunPaths open_run_dir(const std::string& dir) {
  RunPaths p{fs::path(dir).lexically_normal().string()};
  for (const std::string& f : {p.env(), p.recipe_resolved()})
    if (!fs::is_regular_file(f))
      fail(dir, fmt::format("not a run directory: it has no {}", fs::path(f).filename().string()),
           "pass a directory written by `runner run`: runs/<name>/<UTC time>-<id>");
  return p;
}

std::string verified_final_weights(const RunPaths& p) {
  const std::string dir = p.final_model();
  std::error_code ec;
  if (fs::exists(dir + "/manifest.json", ec))  // final/ of a run from before it had one is taken as it is
    if (std::string bad = verify_checkpoint(dir); !bad.empty())
      fail(dir, "the final model fails its sha256 manifest: " + bad + "; it changed since the run wrote it",
           "score or export a checkpoint instead (--checkpoint best, or a step), or train the run again");
  return dir + "/model.safetensors";
}

std::string chosen_weights(const RunPaths& p, const std::string& name) {
  if (name.empty()) return newest_checkpoint(p) + "/model.safetensors";
  if (name == "final") {
    if (!fs::is_regular_file(p.final_model() + "/model.safetensors")) unknown_checkpoint(p, name);
    return verified_final_weights(p);
  }
  std::string dir_name = name;
  if (name == "best") dir_name = best_checkpoint(p);
  if (auto step = step_number(name)) dir_name = checkpoint_name(*step);
  if (dir_name.empty()) unknown_checkpoint(p, name);
  return verified_step(p, dir_name, name) + "/model.safetensors";
}

// The weights of a run's own directory: --checkpoint, else final/ (the trained
// model), else the newest checkpoint that verifies.
// A final/ folder without its weight file is said: the score is then the newest
// checkpoint's, which may not be the model the run ended with.
std::string result_weights(const RunPaths& run, const std::string& checkpoint) {
  const std::string final_weights = run.final_model() + "/model.safetensors";
  if (checkpoint.empty() && fs::is_regular_file(final_weights)) return verified_final_weights(run);
  std::error_code ec;
  if (checkpoint.empty() && fs::exists(run.final_model(), ec))
    std::cerr << "warning: " << terminal_safe(final_weights)
              << " is missing or not a regular file; scoring the newest checkpoint that verifies instead\n";
  return chosen_weights(run, checkpoint);
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

void require_known_dataset(const RunPaths& run, const nlohmann::json& recipe, const std::string& verb) {
  const std::string dataset = recipe.at("data").at("dataset").get<std::string>();
  if (!registry().find(Kind::Dataset, dataset))
    fail(run.recipe_resolved(),
         fmt::format("data.dataset: unknown dataset '{}' (known datasets: {})", dataset,
                     fmt::join(registry().names(Kind::Dataset), ", ")),
         verb + " with the runner (and plugins) that trained the run");
}

}  // namespace runner
