#include "recipe/recipe.h"

#include "recipe/load_tree.h"
#include "recipe/overrides.h"
#include "recipe/resolve.h"
#include "recipe/schema.h"
#include "registry/plugin.h"

#include <algorithm>
#include <set>

namespace runner {
namespace {

// `tried`: the entries loaded (or refused) before, which are neither loaded nor reported again.
void load_plugins(const Value& tree, Registry& reg, Diagnostics& diags, std::set<std::string>& tried) {
  const Value* plugins = tree.find("plugins");
  if (!plugins || plugins->type != Value::Type::List) return;
  for (const auto& p : plugins->list) {
    if (p.type != Value::Type::String) continue;  // reported by the option check
    if (!tried.insert(p.s).second) continue;
    std::string err = load_plugin(p.s, reg);
    if (!err.empty())
      diags.push_back(make_error(p.loc, "plugins", err, "fix or remove this entry of plugins"));
  }
}

// The generated schema must agree with the option checks; anything it still
// finds is reported as it says.
void cross_check_schema(const Recipe& r, const Registry& reg, Diagnostics& diags) {
  for (const auto& [path, message] : recipe_schema_violations(reg, r.tree.to_json()))
    diags.push_back(make_error(r.location_of(path), path, "schema violation: " + message));
}

// Diagnostics in the order a reader meets them: the recipe first, then each file
// it extends, each by line and column; those of --set flags after the files.
// (They are found section by section, which is not the file's order.)
void sort_by_position(Diagnostics& diags, const std::vector<std::string>& files) {
  auto rank = [&](const Diagnostic& d) -> size_t {
    if (d.where.file.empty()) return files.size() + 1;
    auto it = std::find(files.begin(), files.end(), d.where.file);
    return it == files.end() ? files.size() : static_cast<size_t>(it - files.begin());
  };
  std::stable_sort(diags.begin(), diags.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    size_t ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb;
    if (ra > files.size()) return false;  // --set flags keep their order
    return std::tie(a.where.line, a.where.column) < std::tie(b.where.line, b.where.column);
  });
}

// `files`: the recipe and every file it extends, as far as they were read.
RecipeLoad checked_recipe(const RecipeRequest& request, Registry& reg, std::vector<std::string>& files) {
  RecipeLoad out;
  LoadedTree loaded = load_recipe_tree(request.path, request.text);
  out.diags = loaded.diags;
  files = loaded.files;
  if (!loaded.root) return out;

  Recipe r;
  r.path = request.path;
  r.files = loaded.files;
  r.tree = std::move(*loaded.root);
  std::set<std::string> tried_plugins;
  load_plugins(r.tree, reg, out.diags, tried_plugins);
  apply_overrides(r.tree, request.overrides, reg, out.diags);
  load_plugins(r.tree, reg, out.diags, tried_plugins);  // --set plugins=... may name more

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

}  // namespace

nlohmann::json Recipe::section(const std::string& name) const {
  return nlohmann::json::parse(resolved.at(name).dump());
}

SourceLocation Recipe::location_of(const std::string& key_path) const {
  const SourceLocation& loc = deepest_along(tree, key_path).loc;
  return loc.known() ? loc : SourceLocation{path, 0, 0, {}};
}

RecipeLoad load_recipe(const RecipeRequest& request, Registry& reg) {
  std::vector<std::string> files;
  RecipeLoad out = checked_recipe(request, reg, files);
  sort_by_position(out.diags, files);
  return out;
}

}  // namespace runner
