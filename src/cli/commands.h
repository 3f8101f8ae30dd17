// Command handlers, one per subcommand; the table in commands.cpp binds them.
#pragma once

#include "cli/args.h"
#include "recipe/recipe.h"

namespace runner {

int cmd_validate(const ParsedArgs& args);
int cmd_print_config(const ParsedArgs& args);
int cmd_schema(const ParsedArgs& args);
int cmd_describe(const ParsedArgs& args);
int cmd_plugins(const ParsedArgs& args);
int cmd_version(const ParsedArgs& args);
int cmd_tokenize(const ParsedArgs& args);
int cmd_predict(const ParsedArgs& args);
int cmd_run(const ParsedArgs& args);     // cli/cmd_run.cpp
int cmd_resume(const ParsedArgs& args);  // cli/cmd_run.cpp
int cmd_sweep(const ParsedArgs& args);    // cli/cmd_sweep.cpp
int cmd_compare(const ParsedArgs& args);  // cli/cmd_sweep.cpp
int cmd_launch(const ParsedArgs& args);  // cli/cmd_launch.cpp
int cmd_export(const ParsedArgs& args);  // cli/cmd_export.cpp
int cmd_evaluate(const ParsedArgs& args);  // cli/cmd_evaluate.cpp
int cmd_report(const ParsedArgs& args);  // cli/cmd_report.cpp
int cmd_ls(const ParsedArgs& args);      // cli/cmd_report.cpp
int cmd_init(const ParsedArgs& args);    // cli/cmd_init.cpp
int cmd_fetch(const ParsedArgs& args);   // cli/cmd_fetch.cpp
int cmd_env(const ParsedArgs& args);     // cli/cmd_env.cpp
int cmd_completion(const ParsedArgs& args);  // cli/completion.cpp

// Shared by the commands that take a recipe: loads it with --set overrides,
// prints every diagnostic to stderr; nullopt means exit code 2. `stdin_allowed`:
// the recipe may come from standard input (cli/recipe_input.h).
std::optional<Recipe> load_recipe_or_report(const ParsedArgs& args, bool check_paths = true,
                                            bool stdin_allowed = false);
// The same for the recipe at `path` (a flag's value rather than the first argument).
std::optional<Recipe> load_recipe_or_report(const std::string& path, const ParsedArgs& args,
                                            bool check_paths = true, bool stdin_allowed = false);

// A diagnostic as the --json outputs write it: severity, file, line, column or
// origin, key, message, hint (cli/cmd_recipe.cpp).
nlohmann::ordered_json diagnostic_json(const Diagnostic& d);

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

// What this build and machine offer: from LibTorch in the full runner
// (cli/build_info.cpp), from capabilities_without_torch() in the front (src/front/).
Capabilities detect_capabilities();

// The same verdicts without LibTorch (cli/capabilities.cpp): CUDA from the build's
// configuration and the driver, the CPU's flags, MLflow's settings.
Capabilities capabilities_without_torch();
// What both share: the CPU's bf16 and the MLflow environment (cli/capabilities.cpp).
Capabilities host_capabilities();

// A resolved [model] section with each size override left at its "keep" default
// replaced by the size of the model it describes (cli/model_sizes.cpp).
void show_model_sizes(nlohmann::ordered_json& model_section);

}  // namespace runner
