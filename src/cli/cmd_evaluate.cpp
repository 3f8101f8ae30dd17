// `runner evaluate PATH [--split NAME] [--checkpoint NAME] [--recipe RECIPE] [--json]`:
// the loss and metrics of trained weights on a labelled split (the Trainer's
// evaluate()). PATH is a run (its final/, or --checkpoint), one of its
// checkpoint directories, its final/ folder, or any model folder with --recipe
// naming the data; run/split_evaluation.h does the work.
#include "cli/commands.h"
#include "model/adapter_config.h"

#include "cli/run_checkpoints.h"
#include "cli/run_names.h"
#include "cli/table_input.h"
#include "recipe/sections.h"
#include "run/run_dir.h"
#include "run/split_evaluation.h"
#include "util/diagnostic.h"
#include "util/utf8.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iterator>
#include <iostream>

namespace fs = std::filesystem;

namespace runner {
namespace {

struct EvaluationTarget {
  nlohmann::json recipe;  // resolved
  std::string weights;    // a model.safetensors or a model folder
};

bool holds_a_run(const fs::path& p) {
  return fs::is_regular_file(p / "env.json") && fs::is_regular_file(p / "recipe.resolved.json");
}

// The run PATH lies in: itself, the run of a checkpoint (RUN/checkpoints/step-N)
// or of final/ (RUN/final); empty when it is none of those.
fs::path enclosing_run(const fs::path& p) {
  for (const fs::path& candidate : {p, p.parent_path(), p.parent_path().parent_path()})
    if (!candidate.empty() && holds_a_run(candidate)) return candidate;
  return {};
}

// A checkpoint directory is named by its step; final/ by "final".
std::string checkpoint_named_by(const fs::path& path, const fs::path& run) {
  if (path == run) return {};
  return path.filename() == "final" ? "final" : path.filename().string();
}

// The keys `evaluate RUN --set` changes: which examples are scored, and in
// what batches. The rest of a run's recipe made its weights; changed here, the
// score would be another run's.
const char* const kEvaluationKeys[] = {"data.eval_split", "data.max_eval_examples", "data.eval_batch_size"};

[[noreturn]] void refuse_setting(const std::string& flag, const std::string& key, const std::string& what,
                                 const std::string& hint = "") {
  throw InputError(make_error(SourceLocation{{}, 0, 0, "--set " + flag}, key, what, hint));
}

// `text` typed as the option's declaration says, within its range.
nlohmann::json evaluation_value(const OptionSpec& spec, const std::string& key, const std::string& text,
                                const std::string& flag) {
  if (spec.type == OptionType::Int) {
    long long v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size() && !text.empty() &&
        (!spec.minimum || static_cast<double>(v) >= *spec.minimum))
      return v;
  } else if (!text.empty()) {
    return text;
  }
  refuse_setting(flag, key, fmt::format("expected {}, found \"{}\"", spec.expectation(), text));
}

// `runner evaluate RUN --set KEY=VALUE`: the evaluation keys applied to the
// run's resolved recipe; any other key is refused by name, never ignored.
void apply_evaluation_settings(nlohmann::json& recipe, const std::vector<std::string>& sets) {
  const std::string keys = "data.eval_split, data.max_eval_examples and data.eval_batch_size";
  for (const std::string& set : sets) {
    const size_t eq = set.find('=');
    const std::string key = set.substr(0, eq);
    if (eq == std::string::npos || eq == 0)
      refuse_setting(set, "", "expected KEY=VALUE", "e.g. --set data.max_eval_examples=0 (0 = the whole split)");
    if (std::find(std::begin(kEvaluationKeys), std::end(kEvaluationKeys), key) == std::end(kEvaluationKeys))
      refuse_setting(set, key,
                     "evaluate RUN --set takes only the evaluation keys " + keys +
                         "; the run's other settings made its weights",
                     "to score the weights under another recipe, pass RUN/final with --recipe RECIPE");
    const std::string name = key.substr(std::string("data.").size());
    const SectionSpec data = data_section();  // by value: the declaration must outlive `spec`
    const OptionSpec* spec = find_option(data.options, name);
    if (!spec) throw std::logic_error("no declaration of " + key);
    recipe["data"][name] = evaluation_value(*spec, key, set.substr(eq + 1), set);
  }
}

// `--split ''` and `--checkpoint ''` would silently mean the defaults.
void refuse_empty_flags(const ParsedArgs& args) {
  for (const char* flag : {"--split", "--checkpoint"})
    if (args.has(flag) && args.get(flag).empty())
      throw InputError(make_error(SourceLocation{{}, 0, 0, flag}, "", "expected a name, found an empty argument",
                                  std::string(flag) == "--split"
                                      ? "name a labelled split (e.g. dev), or leave --split out for the recipe's "
                                        "data.eval_split"
                                      : "name a checkpoint (step-N, best or final), or leave --checkpoint out"));
}

EvaluationTarget target_of_run(const fs::path& path, const fs::path& run_dir, const ParsedArgs& args) {
  RunPaths run = open_run_dir(run_dir.string());
  nlohmann::json recipe = read_json_file(run.recipe_resolved());
  load_run_plugins(run, recipe);
  require_known_dataset(run, recipe, "evaluate");
  apply_evaluation_settings(recipe, args.all("--set"));
  std::string checkpoint = args.get("--checkpoint");
  if (checkpoint.empty()) checkpoint = checkpoint_named_by(path, run_dir);
  return {recipe, result_weights(run, checkpoint)};
}

[[noreturn]] void not_a_model(const std::string& path) {
  throw InputError(make_error(SourceLocation{path, 0, 0, {}}, "",
                              "neither a run, a run's checkpoint, nor a model folder (config.json)",
                              "pass what `runner ls` prints, RUN/checkpoints/step-N, RUN/final, or a "
                              "model folder with --recipe RECIPE naming the data"));
}

// With --recipe: a model folder or weight file as it is; a run, one of its
// checkpoints or its final/ gives its weights as without --recipe.
std::string weights_for_recipe(const fs::path& path, std::string checkpoint) {
  if (fs::is_regular_file(path / "config.json") || fs::is_regular_file(path) || is_adapter_folder(path.string()))
    return path.string();
  const fs::path run = enclosing_run(path);
  if (run.empty()) not_a_model(path.string());
  if (checkpoint.empty()) checkpoint = checkpoint_named_by(path, run);
  return result_weights(open_run_dir(run.string()), checkpoint);
}

// A per-class (or per-label) table of an evaluation record as text: precision,
// recall, F1 and support per class, then the confusion matrix where there is one.
std::string class_table_text(const std::string& key, const nlohmann::json& t) {
  const nlohmann::json names = t.value("names", nlohmann::json::array());
  size_t width = 5;
  for (const auto& n : names) width = std::max(width, terminal_safe(n.get<std::string>()).size());
  std::string out = fmt::format("{}:\n  {:<{}} {:>9} {:>9} {:>9} {:>9}\n", key, "class", width, "precision",
                                "recall", "f1", "support");
  for (size_t i = 0; i < names.size(); ++i)
    out += fmt::format("  {:<{}} {:>9.4f} {:>9.4f} {:>9.4f} {:>9}\n", terminal_safe(names[i].get<std::string>()), width,
                       t["precision"][i].get<double>(), t["recall"][i].get<double>(), t["f1"][i].get<double>(),
                       t["support"][i].get<long long>());
  if (!t.contains("confusion")) return out;
  out += fmt::format("  confusion (rows: true class, columns: predicted class)\n  {:<{}}", "", width);
  for (const auto& n : names) out += fmt::format(" {:>{}}", terminal_safe(n.get<std::string>()), width);
  out += "\n";
  for (size_t i = 0; i < names.size(); ++i) {
    out += fmt::format("  {:<{}}", terminal_safe(names[i].get<std::string>()), width);
    for (const auto& n : t["confusion"][i]) out += fmt::format(" {:>{}}", n.get<long long>(), width);
    out += "\n";
  }
  return out;
}

}  // namespace

int cmd_evaluate(const ParsedArgs& args) {
  refuse_empty_flags(args);
  const fs::path path = fs::path(run_dir_argument(args.positional(0), std::cerr)).lexically_normal();
  EvaluationTarget target;
  if (args.has("--recipe")) {
    const std::string weights = weights_for_recipe(path, args.get("--checkpoint"));
    std::optional<Recipe> recipe = load_recipe_or_report(args.get("--recipe"), args);
    if (!recipe) return kExitBadInput;
    target = {nlohmann::json::parse(recipe->resolved.dump()), weights};
  } else if (fs::path run = enclosing_run(path); !run.empty()) {
    target = target_of_run(path, run, args);
  } else {
    not_a_model(path.string());
  }
  SplitEvaluation request{target.recipe, target.weights, args.get("--split")};
  if (args.has("--input")) {
    if (args.has("--split"))
      throw InputError(make_error(SourceLocation{{}, 0, 0, "--split"}, "", "--split and --input both name what to score",
                                  "pass one of them"));
    request.input = args.get("--input");
    TableInput table = table_input_of(args, request.input);
    request.input_format = table.format;
    request.columns = table.columns;
    request.header = table.header;
  }
  auto note = [](const nlohmann::json& e) {
    if (e.value("event", "") == "warning") std::cerr << "warning: " << e.value("message", "") << "\n";
  };
  nlohmann::json result = evaluate_split(request, note);
  result["weights"] = target.weights;
  if (args.has("--json")) {
    std::cout << result.dump() << "\n";
    return kExitOk;
  }
  std::string line = fmt::format("eval split={}", terminal_safe(result["split"].get<std::string>()));
  std::string tables;
  for (const auto& [key, value] : result.items()) {
    if (value.is_object()) tables += class_table_text(key, value);  // per_class, per_label, per_class_mm ...
    else if (key != "split" && key != "weights") line += fmt::format(" {}={}", key, value.dump());
  }
  std::cout << line << " weights=" << target.weights << "\n" << tables;
  return kExitOk;
}

}  // namespace runner
