#include "recipe/recipe.h"

#include "recipe/load_tree.h"
#include "recipe/overrides.h"
#include "recipe/resolve.h"
#include "recipe/schema.h"
#include "registry/plugin.h"

namespace runner {
namespace {

void load_plugins(const Value& tree, Registry& reg, Diagnostics& diags) {
  const Value* plugins = tree.find("plugins");
  if (!plugins || plugins->type != Value::Type::List) return;
  for (const auto& p : plugins->list) {
    if (p.type != Value::Type::String) continue;  // reported by the option check
    std::string err = load_plugin(p.s, reg);
    if (!err.empty())
      diags.push_back(make_error(p.loc, "plugins", err, "fix or remove this entry of plugins"));
  }
}

// The generated schema must agree with the option checks; anything it still
// finds is reported as it says.
void cross_check_schema(const Recipe& r, const Registry& reg, Diagnostics& diags) {
  for (const auto& [path, message] : schema_violations(recipe_schema(reg), r.tree.to_json()))
    diags.push_back(make_error(r.location_of(path), path, "schema violation: " + message));
}

}  // namespace

nlohmann::json Recipe::section(const std::string& name) const {
  return nlohmann::json::parse(resolved.at(name).dump());
}

SourceLocation Recipe::location_of(const std::string& key_path) const {
  const SourceLocation& loc = deepest_along(tree, key_path).loc;
  return loc.known() ? loc : SourceLocation{path, 0, 0, {}};
}

RecipeLoad load_recipe(const RecipeRequest& request, Registry& reg) {
  RecipeLoad out;
  LoadedTree loaded = load_recipe_tree(request.path);
  out.diags = loaded.diags;
  if (!loaded.root) return out;

  Recipe r;
  r.path = request.path;
  r.files = loaded.files;
  r.tree = std::move(*loaded.root);
  load_plugins(r.tree, reg, out.diags);
  apply_overrides(r.tree, request.overrides, reg, out.diags);
  load_plugins(r.tree, reg, out.diags);  // --set plugins=... may name more

  // Resolve even after a bad override: every error of the recipe is reported at once.
  ResolveOptions options{request.path, request.check_paths};
  r.resolved = resolve_tree(r.tree, reg, options, out.diags);
  if (has_errors(out.diags)) return out;
  cross_check_schema(r, reg, out.diags);
  if (has_errors(out.diags)) return out;
  check_recipe_rules(r.resolved, r.tree, request.caps, reg, out.diags);
  if (!has_errors(out.diags)) out.recipe = std::move(r);
  return out;
}

}  // namespace runner
