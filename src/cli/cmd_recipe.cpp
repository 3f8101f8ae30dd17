// Commands about recipes and components: validate, print-config, schema, describe, plugins.
#include "cli/commands.h"

#include "recipe/emit.h"
#include "recipe/schema.h"
#include "recipe/sections.h"
#include "registry/plugin.h"
#include "run/run_dir.h"
#include "util/suggest.h"

#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include "runner_build_config.h"

namespace runner {

std::optional<Recipe> load_recipe_or_report(const ParsedArgs& args, bool check_paths) {
  RecipeRequest request;
  request.path = args.positional(0);
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

int cmd_validate(const ParsedArgs& args) {
  std::optional<Recipe> recipe = load_recipe_or_report(args);
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
  std::optional<Recipe> recipe = load_recipe_or_report(args);
  if (!recipe) return kExitBadInput;
  std::cout << emit_recipe(recipe->resolved, f);
  return kExitOk;
}

int cmd_schema(const ParsedArgs&) {
  std::cout << recipe_schema(registry()).dump(2) << "\n";
  return kExitOk;
}

static std::string default_text(const OptionSpec& o) {
  if (o.required) return "(required)";
  return o.default_value.dump();
}

static std::string options_table(const std::vector<OptionSpec>& options) {
  std::string s;
  for (const auto& o : options) {
    std::string allowed = o.type == OptionType::Choice ? join(o.choices, "|") : o.expectation();
    s += fmt::format("  {:<26} {:<40} default {}\n      {}\n", o.name, allowed, default_text(o), o.doc);
  }
  return s.empty() ? "  (no options)\n" : s;
}

static int describe_kind(Kind kind, const std::string& name) {
  if (name.empty()) {
    std::cout << fmt::format("{} components:\n", kind_name(kind));
    for (const Component* c : registry().list(kind))
      std::cout << fmt::format("  {:<24} {}\n", c->spec.name, c->spec.doc);
    return kExitOk;
  }
  const Component* c = registry().find(kind, name);
  if (!c) {
    std::vector<std::string> known = registry().names(kind);
    std::string hint = did_you_mean(name, known);
    std::cerr << fmt::format("error: unknown {} \"{}\" (known: {}){}\n", kind_name(kind), name,
                             join(known), hint.empty() ? "" : "\n  hint: " + hint);
    return kExitBadInput;
  }
  std::cout << fmt::format("{} \"{}\" ({}): {}\n\noptions:\n{}", kind_name(kind), name, c->origin,
                           c->spec.doc, options_table(c->spec.options));
  return kExitOk;
}

int cmd_describe(const ParsedArgs& args) {
  std::string what = args.positional(0), name = args.positional(1);
  if (const SectionSpec* s = find_section(what)) {
    if (!name.empty() && s->component_kind) return describe_kind(*s->component_kind, name);
    std::cout << fmt::format("[{}]: {}\n\noptions:\n{}", s->name, s->doc, options_table(s->options));
    if (!s->component_kind) return kExitOk;
    std::cout << fmt::format("\n{} selects the {} (default \"{}\"); `runner describe {} NAME` "
                             "shows a component's own options.\n\n",
                             s->selector_key, kind_name(*s->component_kind), s->default_component,
                             s->name);
    return describe_kind(*s->component_kind, "");
  }
  if (auto kind = kind_from_name(what)) return describe_kind(*kind, name);
  std::vector<std::string> known;
  for (const auto& s : recipe_sections()) known.push_back(s.name);
  for (Kind k : all_kinds()) known.push_back(kind_name(k));
  std::string hint = did_you_mean(what, known);
  std::cerr << fmt::format("error: describe: unknown section or kind \"{}\" (known: {}){}\n", what,
                           join(known), hint.empty() ? "" : "\n  hint: " + hint);
  return kExitBadInput;
}

int cmd_plugins(const ParsedArgs& args) {
  if (!args.positional(0).empty() && !load_recipe_or_report(args, false)) return kExitBadInput;
  for (Kind kind : all_kinds()) {
    std::cout << kind_name(kind) << ":\n";
    for (const Component* c : registry().list(kind))
      std::cout << fmt::format("  {:<24} {}{}\n", c->spec.name, c->spec.doc,
                               c->origin == "built-in" ? "" : "  [" + c->origin + "]");
  }
  return kExitOk;
}

int cmd_version(const ParsedArgs&) {
  std::cout << fmt::format("runner {} (git {})\nLibTorch {}\ncompiler {}\n", RUNNER_VERSION,
                           RUNNER_GIT_COMMIT, libtorch_version(), RUNNER_COMPILER);
  return kExitOk;
}

}  // namespace runner
