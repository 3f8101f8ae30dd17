// What the front runner (`runner`) links in runner_torch's place: the functions of
// the LibTorch side that core code names. The front serves the commands that need
// none of them (Needs::Core in cli/commands.cpp); the others, and a recipe with
// plugins, it hands to the full runner before they start (cli/cli.cpp).
#include "cli/commands.h"
#include "model/export_weights.h"
#include "model/families.h"
#include "model/predict.h"
#include "optim/optimizer_components.h"
#include "run/run_dir.h"
#include "run/run_training.h"
#include "run/split_evaluation.h"
#include "train/predict_answers.h"
#include "train/predict_entities.h"
#include "util/torch_linked.h"

#include <stdexcept>

namespace runner {
namespace {

// A command that reaches one of these runs in the front by mistake.
[[noreturn]] void needs_full_runner(const std::string& what) {
  throw std::logic_error(what + " needs LibTorch, which the front runner does not link: mark its command "
                                "Needs::LibTorch in src/cli/commands.cpp");
}

}  // namespace

bool links_torch() { return false; }

Capabilities detect_capabilities() { return capabilities_without_torch(); }

// The front registers every family's and optimizer's spec, and nothing that builds one.
const FamilyBuilders& family_builders() {
  static const FamilyBuilders none;
  return none;
}

const OptimizerBuilders& optimizer_builders() {
  static const OptimizerBuilders none;
  return none;
}

int run_recipe(const Recipe&, const RunOptions&) { needs_full_runner("run_recipe"); }
int resume_run(const ResumeOptions&) { needs_full_runner("resume_run"); }
int run_predict_command(const PredictCommandOptions&, std::istream&, std::ostream&, std::ostream&) {
  needs_full_runner("run_predict_command");
}
int run_entity_predict(const PredictCommandOptions&, std::istream&, std::ostream&, std::ostream&) {
  needs_full_runner("run_entity_predict");
}
int run_answer_predict(const PredictCommandOptions&, std::istream&, std::ostream&, std::ostream&) {
  needs_full_runner("run_answer_predict");
}
std::vector<std::string> export_weights(const WeightsExport&) { needs_full_runner("export_weights"); }
nlohmann::json evaluate_split(const SplitEvaluation&, const std::function<void(const nlohmann::json&)>&) {
  needs_full_runner("evaluate_split");
}
int cmd_env(const ParsedArgs&) { needs_full_runner("cmd_env"); }
void show_model_sizes(nlohmann::ordered_json&) { needs_full_runner("show_model_sizes"); }
std::string gpu_model() { needs_full_runner("gpu_model"); }

}  // namespace runner
