#include "recipe/load_tree.h"

#include "recipe/interpolate.h"
#include "recipe/parse.h"
#include "util/suggest.h"

#include <filesystem>

namespace runner {
namespace fs = std::filesystem;
namespace {

struct Loader {
  std::vector<std::string> chain;  // canonical paths being loaded, outermost first
  LoadedTree& out;

  std::vector<std::string> display_cycle(const std::string& again) const {
    std::vector<std::string> names;
    bool in_cycle = false;
    for (const auto& c : chain) {
      if (c == again) in_cycle = true;
      if (in_cycle) names.push_back(fs::path(c).filename().string());
    }
    names.push_back(fs::path(again).filename().string());
    return names;
  }

  // The `extends` entries of a file as (path relative to the file, location).
  std::vector<Value> extends_entries(const Value& root) {
    const Value* ext = root.find("extends");
    if (!ext) return {};
    if (ext->type == Value::Type::String) return {*ext};
    if (ext->type == Value::Type::List) {
      std::vector<Value> items;
      for (const auto& item : ext->list) {
        if (item.type == Value::Type::String)
          items.push_back(item);
        else
          out.diags.push_back(make_error(item.loc, "extends",
                                         "expected a recipe path (string), found " + item.short_str()));
      }
      return items;
    }
    out.diags.push_back(make_error(ext->loc, "extends",
                                   "expected a recipe path or a list of paths, found " +
                                       ext->short_str()));
    return {};
  }

  // Plugin paths are relative to the file that names them: make them absolute now.
  void absolutise_plugins(Value& root, const fs::path& dir) {
    Value* plugins = root.find("plugins");
    if (!plugins || plugins->type != Value::Type::List) return;
    for (auto& item : plugins->list)
      if (item.type == Value::Type::String && !item.s.empty() && fs::path(item.s).is_relative())
        item.s = (dir / item.s).lexically_normal().string();
  }

  static void merge_layer(Value& merged, Value layer) {
    Value* new_plugins = layer.find("plugins");
    Value* old_plugins = merged.find("plugins");
    if (new_plugins && old_plugins && new_plugins->type == Value::Type::List &&
        old_plugins->type == Value::Type::List) {
      Value combined = *old_plugins;
      for (const auto& p : new_plugins->list) combined.list.push_back(p);
      *new_plugins = combined;
    }
    merge_into(merged, layer);
  }

  std::optional<Value> load(const std::string& path, const SourceLocation& named_at,
                            const std::optional<std::string>& text = std::nullopt) {
    // /dev/stdin of a pipe has no canonical path; its name is one enough for a cycle check.
    std::error_code ec;
    std::string canonical = fs::weakly_canonical(path, ec).string();
    if (ec) canonical = fs::absolute(path, ec).lexically_normal().string();
    for (const auto& c : chain)
      if (c == canonical) {
        out.diags.push_back(make_error(named_at, "extends",
                                       "extends cycle: " + join(display_cycle(canonical), " -> "),
                                       "remove one of the extends entries that close the cycle"));
        return std::nullopt;
      }
    ParsedFile parsed = text ? parse_recipe_text(*text, path) : parse_recipe_file(path);
    if (!parsed.root) {
      for (auto& d : parsed.diags) {
        if (named_at.known() && d.where.line == 0) {  // the base itself is unreadable
          d.message = path + ": " + d.message;
          d.where = named_at;
          d.key_path = "extends";
          d.hint = "extends paths are relative to the file that names them";
        }
        out.diags.push_back(d);
      }
      return std::nullopt;
    }
    out.diags.insert(out.diags.end(), parsed.diags.begin(), parsed.diags.end());
    out.files.push_back(path);
    Value root = std::move(*parsed.root);
    // Each file's strings are interpolated as it is read, so that `extends` and
    // `plugins`, which are used before the files merge, see the values too.
    size_t before = out.diags.size();
    interpolate_env(root, "", out.diags);
    // An extends path that did not interpolate names no file: its error is enough.
    if (has_errors(Diagnostics(out.diags.begin() + before, out.diags.end()))) root.erase("extends");
    fs::path dir = fs::path(path).parent_path();
    absolutise_plugins(root, dir);

    chain.push_back(canonical);
    Value merged = Value::make_table(root.loc);
    bool ok = true;
    for (const Value& entry : extends_entries(root)) {
      std::string base_path = (dir / entry.s).lexically_normal().string();
      std::optional<Value> base = load(base_path, entry.loc);
      if (!base) {
        ok = false;
        continue;
      }
      merge_layer(merged, std::move(*base));
    }
    chain.pop_back();
    if (!ok) return std::nullopt;
    root.erase("extends");
    merge_layer(merged, std::move(root));
    return merged;
  }
};

}  // namespace

LoadedTree load_recipe_tree(const std::string& path, const std::optional<std::string>& text) {
  LoadedTree out;
  Loader loader{{}, out};
  std::optional<Value> root = loader.load(path, SourceLocation{}, text);
  if (root && !has_errors(out.diags)) out.root = std::move(root);
  return out;
}

}  // namespace runner
