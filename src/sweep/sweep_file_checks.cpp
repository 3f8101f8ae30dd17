// The sweep file's structural checks: its shape, its keys and their types,
// and the recipe keys a sweep sets itself. Each error names the key, the value
// found and the fix, before the schema's generic messages.
#include "sweep/sweep_file_checks.h"

#include "util/suggest.h"

#include <fmt/format.h>

#include <algorithm>

namespace runner {

using ojson = nlohmann::ordered_json;

const std::vector<SweepTableKey>& sweep_table_keys() {
  static const std::vector<SweepTableKey> keys = {
      {"set", "Overrides applied to every point: recipe key -> value", ojson::object()},
      {"grid", "Cartesian product: recipe key -> list of values (every combination runs)",
       {{"type", "array"}}},
      {"zip", "Lists advanced together: recipe key -> list of values, all the same length",
       {{"type", "array"}}},
      {"random", "Sampled keys: recipe key -> { uniform | log_uniform | int = [low, high] } or "
                 "{ choice = [values] }; `samples` points are drawn",
       {{"type", "object"}, {"minProperties", 1}, {"maxProperties", 1}}},
  };
  return keys;
}

void check_sweep_known_keys(const Value& root, Diagnostics& diags) {
  std::vector<std::string> known = {"set", "grid", "zip", "random", "points", "asha"};
  for (const auto& o : sweep_options()) known.push_back(o.name);
  for (const auto& [key, v] : root.table) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string close = closest_match(key, known);
    std::string hint = close.empty() ? "known keys: " + join(known)
                                     : fmt::format("did you mean \"{}\"?", close);
    diags.push_back(make_error(v.loc, key, fmt::format("unknown sweep key \"{}\"", key), hint));
  }
}

namespace {

std::string example_line(const std::string& table) {
  if (table == "set") return "3e-5";
  if (table == "random") return "{ log_uniform = [1e-5, 1e-3] }";
  return "[3e-5, 1e-4]";
}

std::string found_text(const Value& v) { return v.type_name() + " " + v.short_str(); }

// Every scalar key is a string, set/grid/zip are tables and points a list:
// said with the key and the value found, before the schema's generic messages.
void check_types(const Value& root, Diagnostics& diags) {
  for (const auto& o : sweep_options()) {
    const Value* v = root.find(o.name);
    if (!v) continue;
    if (o.type == OptionType::Int && v->type != Value::Type::Int)
      diags.push_back(make_error(v->loc, o.name,
                                 fmt::format("expected a whole number ({}), found {}", o.doc, found_text(*v)),
                                 fmt::format("write {} = 16 without quotes", o.name)));
    else if (o.type != OptionType::Int && v->type != Value::Type::String)
      diags.push_back(make_error(v->loc, o.name,
                                 fmt::format("expected a string ({}), found {}", o.doc, found_text(*v)),
                                 fmt::format("write {} = \"...\" in quotes", o.name)));
    else if (o.type == OptionType::Choice && std::find(o.choices.begin(), o.choices.end(), v->s) == o.choices.end())
      diags.push_back(make_error(v->loc, o.name,
                                 fmt::format("expected one of {}, found \"{}\"", join(o.choices), v->s),
                                 fmt::format("write {} = \"{}\"", o.name, o.choices.front())));
  }
  for (const auto& t : sweep_table_keys())
    if (const Value* v = root.find(t.name); v && !v->is_table())
      diags.push_back(make_error(v->loc, t.name,
                                 fmt::format("expected a table ({}), found {}", t.doc, found_text(*v)),
                                 fmt::format("write [{}] and below it lines such as "
                                             "\"optimizer.lr\" = {}",
                                             t.name, example_line(t.name))));
  if (const Value* v = root.find("points"); v && v->type != Value::Type::List)
    diags.push_back(make_error(v->loc, "points",
                               "expected a list of tables of recipe key -> value, found " + found_text(*v),
                               "write points = [{\"optimizer.lr\" = 3e-5}, ...]"));
}

}  // namespace

// A sweep file is a table holding at least the required keys; an empty file
// or a lone scalar says so here, before any key is read.
void check_sweep_shape(const Value& root, const std::string& path, Diagnostics& diags) {
  const char* hint = "a sweep file needs at least base = \"recipe.toml\" and metric = \"eval.f1\"; "
                     "see `runner sweep --schema`";
  if (!root.is_table()) {
    std::string found = root.type == Value::Type::Null ? "an empty document"
                                                       : root.type_name() + " " + root.short_str();
    diags.push_back(make_error(root.loc.known() ? root.loc : SourceLocation{path, 0, 0, {}}, "",
                               "expected a table of sweep keys, found " + found, hint));
    return;
  }
  for (const auto& o : sweep_options())
    if (o.required && !root.find(o.name))
      diags.push_back(make_error(SourceLocation{path, 0, 0, {}}, o.name,
                                 fmt::format("missing the required key \"{}\" ({})", o.name, o.doc),
                                 hint));
  check_types(root, diags);
}

// The sweep decides where each point's run goes (<output_dir>/<name>/<point id>/)
// and what it is called (the point id): a recipe value for those would be
// overridden without a word, so it is refused, naming the sweep's own key.
// run.output_dir under [set] is the one exception when the file has no
// output_dir: it is then the sweep's folder (runs_folder_of).
void check_keys_the_sweep_sets(const Value& root, const SweepFile& sweep, Diagnostics& diags) {
  auto refuse = [&](const Assignment& a, const std::string& where) {
    if (a.key == "run.name")
      diags.push_back(make_error(a.value.loc, a.key,
                                 fmt::format("run.name {} would be ignored: every point's run is named by its point id",
                                             where),
                                 "remove it; name = \"...\" at the sweep file's top level names the sweep"));
    else if (a.key == "run.output_dir")
      diags.push_back(make_error(a.value.loc, a.key,
                                 fmt::format("run.output_dir {} would be ignored: the sweep puts every point's run "
                                             "under <output_dir>/<name>/<point id>/", where),
                                 "write output_dir = \"...\" at the sweep file's top level instead"));
  };
  bool own_output_dir = root.find("output_dir") != nullptr;
  for (const auto& a : sweep.set)
    if (a.key == "run.name") refuse(a, "under [set]");
    else if (a.key == "run.output_dir" && own_output_dir) refuse(a, "under [set] beside the sweep's output_dir");
  for (const auto* axes : {&sweep.grid, &sweep.zip})
    for (const auto& axis : *axes)
      if (axis.key == "run.name" || axis.key == "run.output_dir")
        refuse({axis.key, Value::make_string("", axis.loc)}, axes == &sweep.grid ? "in [grid]" : "in [zip]");
  for (const auto& point : sweep.points)
    for (const auto& a : point) refuse(a, "in a point");
  for (const auto& axis : sweep.random)
    if (axis.key == "run.name" || axis.key == "run.output_dir")
      refuse({axis.key, Value::make_string("", axis.loc)}, "in [random]");
}

}  // namespace runner
