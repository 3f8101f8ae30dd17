// Commands about recipes and components: validate, print-config, schema, plugins
// (describe is cli/cmd_describe.cpp).
#include "cli/commands.h"

#include "cli/example_plugins.h"
#include "cli/recipe_input.h"
#include "recipe/emit.h"
#include "recipe/schema.h"
#include "recipe/sections.h"
#include "registry/plugin.h"
#include "run/run_dir.h"
#include "util/suggest.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "runner_build_config.h"
#include "util/built_commit.h"

namespace runner {

std::optional<Recipe> load_recipe_or_report(const ParsedArgs& args, bool check_paths, bool stdin_allowed) {
  return load_recipe_or_report(args.positional(0), args, check_paths, stdin_allowed);
}

std::optional<Recipe> load_recipe_or_report(const std::string& path, const ParsedArgs& args,
                                            bool check_paths, bool stdin_allowed) {
  RecipeRequest request = recipe_request(path, stdin_allowed);
  request.overrides = args.all("--set");
  request.check_paths = check_paths;
  request.caps = detect_capabilities();
  RecipeLoad load = load_recipe(request, registry());
  std::cerr << format_all(load.diags);
  if (!load.recipe) {
    size_t errors = 0;
    for (const auto& d : load.diags) errors += d.severity == Severity::Error;
    std::cerr << fmt::format("{}: {} error{}; nothing was run\n", request.path, errors,
                             errors == 1 ? "" : "s");
  }
  return std::move(load.recipe);
}

nlohmann::ordered_json diagnostic_json(const Diagnostic& d) {
  nlohmann::ordered_json j = {{"severity", d.severity == Severity::Error ? "error" : "warning"}};
  if (!d.where.file.empty()) j["file"] = d.where.file;
  if (d.where.line > 0) j["line"] = d.where.line;
  if (d.where.column > 0) j["column"] = d.where.column;
  if (!d.where.origin.empty()) j["origin"] = d.where.origin;
  j["key"] = d.key_path;
  j["message"] = d.message;
  j["hint"] = d.hint;
  return j;
}

// `validate --json`: one document on stdout, {"recipe", "valid", "errors", "warnings"},
// each diagnostic with its file, line, column (or --set origin), key, message and hint.
static int validate_json(const ParsedArgs& args) {
  RecipeRequest request = recipe_request(args.positional(0), true);
  request.overrides = args.all("--set");
  request.caps = detect_capabilities();
  RecipeLoad load = load_recipe(request, registry());
  nlohmann::ordered_json errors = nlohmann::ordered_json::array(), warnings = errors;
  for (const auto& d : load.diags) (d.severity == Severity::Error ? errors : warnings).push_back(diagnostic_json(d));
  nlohmann::ordered_json out = {{"recipe", request.path}, {"valid", load.recipe.has_value()},
                                {"errors", errors}, {"warnings", warnings}};
  // A recipe's value may hold ESC, U+2028 or U+202E: written as \u escapes, the same JSON.
  std::cout << json_terminal_safe(out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) << "\n";
  return load.recipe ? kExitOk : kExitBadInput;
}

int cmd_validate(const ParsedArgs& args) {
  if (args.has("--json")) return validate_json(args);
  std::optional<Recipe> recipe = load_recipe_or_report(args, true, true);
  if (!recipe) return kExitBadInput;
  std::cout << fmt::format("{}: valid\n", recipe->path);
  return kExitOk;
}

int cmd_print_config(const ParsedArgs& args) {
  std::string format = args.get("--format", "toml");
  RecipeFormat f;
  if (format == "toml") f = RecipeFormat::Toml;
  else if (format == "yaml") f = RecipeFormat::Yaml;
  else if (format == "json") f = RecipeFormat::Json;
  else {
    std::cerr << fmt::format("error: --format: expected toml, yaml or json, found \"{}\"\n", format);
    return kExitBadInput;
  }
  std::optional<Recipe> recipe = load_recipe_or_report(args, true, true);
  if (!recipe) return kExitBadInput;
  // run.output_dir is relative to the folder a run starts in (not the recipe's):
  // shown absolute from here, as every other path of the output is.
  nlohmann::ordered_json& output_dir = recipe->resolved["run"]["output_dir"];
  if (output_dir.is_string())
    output_dir = std::filesystem::absolute(output_dir.get<std::string>()).lexically_normal().string();
  show_model_sizes(recipe->resolved["model"]);
  std::cout << emit_recipe(recipe->resolved, f);
  return kExitOk;
}

int cmd_schema(const ParsedArgs&) {
  std::cout << recipe_schema(registry()).dump(2) << "\n";
  return kExitOk;
}

int cmd_plugins(const ParsedArgs& args) {
  if (!args.positional(0).empty() && !load_recipe_or_report(args, false)) return kExitBadInput;
  const std::vector<ExamplePlugin> examples = read_example_plugins();  // before any output: see its header
  for (Kind kind : all_kinds()) {
    std::cout << kind_name(kind) << ":\n";
    for (const Component* c : registry().list(kind))
      std::cout << fmt::format("  {:<24} {}{}\n", c->spec.name, c->spec.doc,
                               c->origin == "built-in" ? "" : "  [" + c->origin + "]");
  }
  if (examples.empty()) return kExitOk;
  std::cout << "example plugins (load one with plugins = [\"PATH\"] in a recipe; sources in examples/plugins):\n";
  for (const ExamplePlugin& p : examples) {
    std::cout << "  " << terminal_safe(p.path) << "\n";
    for (const std::string& c : p.components) std::cout << "    " << terminal_safe(c) << "\n";
    if (!p.error.empty()) std::cout << "    cannot be loaded: " << terminal_safe(p.error) << "\n";
  }
  return kExitOk;
}

int cmd_version(const ParsedArgs&) {
  std::cout << fmt::format("runner {} (git {})\nLibTorch {}\ncompiler {}\n", RUNNER_VERSION,
                           built_commit(), libtorch_version(), RUNNER_COMPILER);
  return kExitOk;
}

}  // namespace runner
