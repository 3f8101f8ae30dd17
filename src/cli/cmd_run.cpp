// `runner run RECIPE` and `runner resume RUN_DIR`: argument handling only; the
// run itself is run/run_training.h.
#include "cli/commands.h"

#include "cli/run_names.h"
#include "run/run_training.h"

#include <fmt/format.h>

#include <iostream>
#include <sstream>

namespace runner {
namespace {

// "--allow-changes train.epochs,optimizer.lr" (the flag may also repeat).
std::vector<std::string> allowed_changes(const ParsedArgs& args) {
  std::vector<std::string> out;
  for (const auto& value : args.all("--allow-changes")) {
    std::stringstream in(value);
    std::string key;
    while (std::getline(in, key, ','))
      if (!key.empty()) out.push_back(key);
  }
  return out;
}

std::vector<std::string> command_line(const ParsedArgs& args) {
  std::vector<std::string> line = {"runner"};
  line.insert(line.end(), args.argv.begin(), args.argv.end());
  return line;
}

}  // namespace

int cmd_run(const ParsedArgs& args) {
  std::string resume = args.get("--resume");
  if (args.has("--resume") && resume != "auto") {
    std::cerr << fmt::format("error: --resume: expected \"auto\", found \"{}\"\n  hint: to continue "
                             "a given run directory use `runner resume RUN_DIR`\n", resume);
    return kExitBadInput;
  }
  RunOptions options;
  try {
    options.stop_at_step = integer_flag(args, "--stop-at-step", 0);
    options.stop_at_epoch = integer_flag(args, "--stop-at-epoch", 0);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n  hint: give the optimizer step (or epoch) to stop after, e.g. "
                                          "--stop-at-step 100\n";
    return kExitBadInput;
  }
  if (options.stop_at_step > 0 && options.stop_at_epoch > 0) {
    std::cerr << "error: --stop-at-step and --stop-at-epoch both name where the run stops\n  hint: give one\n";
    return kExitBadInput;
  }
  std::optional<Recipe> recipe = load_recipe_or_report(args);
  if (!recipe) return kExitBadInput;
  options.command_line = command_line(args);
  options.overrides = args.all("--set");
  options.resume_auto = resume == "auto";
  options.allow_changes = allowed_changes(args);
  return run_recipe(*recipe, options);
}

int cmd_resume(const ParsedArgs& args) {
  ResumeOptions options;
  options.run_dir = run_dir_argument(args.positional(0), std::cerr);
  options.overrides = args.all("--set");
  options.allow_changes = allowed_changes(args);
  options.command_line = command_line(args);
  options.caps = detect_capabilities();
  return resume_run(options);
}

}  // namespace runner
