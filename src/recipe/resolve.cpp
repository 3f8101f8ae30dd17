#include "recipe/resolve.h"

#include "hub/named_sources.h"
#include "hub/repo_files.h"
#include "recipe/foreign_names.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/paths.h"
#include "util/suggest.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

namespace runner {
namespace fs = std::filesystem;
namespace {

std::string found_str(const Value& v) {
  if (v.type == Value::Type::Table) return "a table";
  if (v.type == Value::Type::List) return "a list " + v.short_str();
  return v.short_str() + " (" + v.type_name() + ")";
}

bool in_range(const OptionSpec& s, double x) {
  if (s.minimum && (s.exclusive_minimum ? x <= *s.minimum : x < *s.minimum)) return false;
  if (s.maximum && (s.exclusive_maximum ? x >= *s.maximum : x > *s.maximum)) return false;
  return true;
}

bool scalar_fits(OptionType t, const OptionSpec& s, const Value& v) {
  switch (t) {
    case OptionType::Bool: return v.type == Value::Type::Bool;
    case OptionType::Int: return v.type == Value::Type::Int && in_range(s, double(v.i));
    case OptionType::Number:
      if (v.type == Value::Type::Int) return in_range(s, double(v.i));
      // No option's range includes inf or nan: the arithmetic they feed would not either.
      return v.type == Value::Type::Float && std::isfinite(v.f) && in_range(s, v.f);
    default: return v.type == Value::Type::String;
  }
}

OptionType element_type(OptionType t) {
  switch (t) {
    case OptionType::IntList: return OptionType::Int;
    case OptionType::NumberList: return OptionType::Number;
    case OptionType::IntMap: return OptionType::Int;
    default: return OptionType::String;
  }
}

nlohmann::ordered_json scalar_json(OptionType t, const Value& v) {
  if (t == OptionType::Number) return v.type == Value::Type::Int ? double(v.i) : v.f;
  return nlohmann::ordered_json::parse(v.to_json().dump());
}

nlohmann::ordered_json coerce(const OptionSpec& s, const Value& v) {
  switch (s.type) {
    case OptionType::IntList:
    case OptionType::NumberList:
    case OptionType::StringList: {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const auto& item : v.list) a.push_back(scalar_json(element_type(s.type), item));
      return a;
    }
    case OptionType::StringMap:
    case OptionType::IntMap: {
      std::map<std::string, const Value*> sorted;  // TOML and YAML order differ: sort
      for (const auto& [k, item] : v.table) sorted[k] = &item;
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (const auto& [k, item] : sorted) o[k] = scalar_json(element_type(s.type), *item);
      return o;
    }
    default: return scalar_json(s.type, v);
  }
}

// The folder a value's relative paths start from: its recipe's.
fs::path folder_of(const Value& v) {
  fs::path here = fs::path(v.loc.file).parent_path();
  return here.empty() ? fs::current_path() : here;  // from --set, a default, or a file in the cwd
}

// Where a name (not ./ or ../) of a data or model option is looked for: the
// roots (util/paths.h) as seen from the file that wrote it, or, for a default or
// a --set value, from the recipe given.
std::string root_for(const OptionSpec& s, const Value& v, const std::string& recipe_path) {
  std::error_code ec;  // a default's or a --set value's location names no file
  const bool from_file = fs::is_regular_file(v.loc.file, ec);
  std::string recipe_dir = fs::path(from_file ? v.loc.file : recipe_path).parent_path().string();
  return s.type == OptionType::DataPath ? data_root(recipe_dir) : model_root(recipe_dir);
}

std::string resolve_path(const OptionSpec& s, const Value& v, const std::string& recipe_path) {
  const std::string& p = v.s;
  bool explicit_relative = p.rfind("./", 0) == 0 || p.rfind("../", 0) == 0;
  if (s.type == OptionType::FilePath || explicit_relative)
    return resolve_against(fs::absolute(folder_of(v)).string(), p);
  return resolve_against(root_for(s, v, recipe_path), p);
}

// Which names a path option may fetch (src/hub/named_sources.h): the model
// folder (its files picked as a model's), the tokenizer folder, and [data]'s
// GLUE task folders. The section says which file set a folder needs.
hub::Fetchable fetchable(const OptionSpec& s, const std::string& key_path) {
  std::string section = key_path.substr(0, key_path.find('.'));
  if (s.type == OptionType::ModelPath)
    return section == "tokenizer" ? hub::Fetchable::Tokenizer : hub::Fetchable::Model;
  if (s.type == OptionType::DataPath && section == "data") return hub::Fetchable::GlueTask;
  return hub::Fetchable::None;
}

hub::NameRequest name_request(const OptionSpec& s, const Value& v, const std::string& key_path,
                              const std::string& resolved) {
  bool explicit_path = v.s.rfind("./", 0) == 0 || v.s.rfind("../", 0) == 0 || fs::path(v.s).is_absolute();
  std::string source = explicit_path || s.type == OptionType::FilePath ? "path"
                       : s.type == OptionType::DataPath               ? "data_root"
                                                                      : "models_root";
  return {fetchable(s, key_path), v.s, resolved, source};
}

// Both attempts: the local path, then the name.
// The files a model or tokenizer folder is read through (mapped, hashed): a
// pipe or a device among them would block the run after its directory exists.
std::string special_file_in_folder(const std::string& folder) {
  std::vector<std::string> files = {"config.json", "vocab.txt", "tokenizer.json", "tokenizer_config.json"};
  files.insert(files.end(), hub::weight_file_names().begin(), hub::weight_file_names().end());
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return "";
  for (const std::string& name : files) {
    std::string file = (fs::path(folder) / name).string(), kind = special_file_kind(file);
    if (!kind.empty()) return file + " is " + kind;
  }
  return "";
}

std::string fetch_failure(const std::string& name, const std::string& resolved, const Diagnostic& d) {
  return fmt::format("path \"{}\" does not exist (resolved to {}), and fetching it by name failed: {}{}", name,
                     resolved, d.message, d.where.known() ? " [" + d.where.str() + "]" : "");
}

struct SectionResolver {
  const Registry& reg;
  const ResolveOptions& options;
  Diagnostics& diags;
  std::map<std::string, std::string> located_ = {};  // located_folder's answers

  void unknown_key(const std::string& path, const std::string& key, const Value& v,
                   const std::vector<std::string>& known, const std::string& where) {
    std::string hint = unknown_key_hint(key, &v);
    if (hint.empty()) hint = did_you_mean(key, known);
    if (hint.empty()) hint = "known keys in " + where + ": " + join(known);
    diags.push_back(make_error(v.loc, path, "unknown key \"" + key + "\" in " + where, hint));
  }

  nlohmann::ordered_json option_value(const OptionSpec& s, const Value* v, const std::string& path) {
    if (!v && is_path_type(s.type) && !s.default_value.get<std::string>().empty()) {
      Value def = Value::make_string(s.default_value.get<std::string>(),
                                     SourceLocation{{}, 0, 0, "the default of " + path});
      return check_path(s, def, path);
    }
    if (!v) return nlohmann::ordered_json::parse(s.default_value.dump());
    std::string mismatch = option_mismatch(s, *v);
    if (!mismatch.empty()) {
      std::string hint;
      if (s.type == OptionType::Choice && v->type == Value::Type::String)
        hint = did_you_mean(v->s, s.choices);
      diags.push_back(make_error(v->loc, path, mismatch, hint));
      return nullptr;
    }
    if (is_path_type(s.type) && !v->s.empty()) return check_path(s, *v, path);
    return coerce(s, *v);
  }

  nlohmann::ordered_json check_path(const OptionSpec& s, const Value& v, const std::string& path) {
    std::string resolved = resolve_path(s, v, options.recipe_path);
    // Before anything asks the file system: past the system's limits its own message is raw.
    std::string too_long = path_length_problem(resolved);
    if (!too_long.empty()) {
      diags.push_back(make_error(v.loc, path, too_long, "name a shorter path (a symbolic link to the folder is one way)"));
      return resolved;
    }
    if (!options.check_paths) return resolved;
    try {
      resolved = hub::locate(name_request(s, v, path, resolved));
    } catch (const InputError& e) {
      diags.push_back(make_error(v.loc, path, fetch_failure(v.s, resolved, e.diagnostic()), e.diagnostic().hint));
      return resolved;
    }
    std::string special = special_file_kind(resolved);
    if (!special.empty())
      diags.push_back(make_error(v.loc, path, fmt::format("expected a file or a folder, found {} ({})", special, resolved),
                                 "name a regular file or a folder; reading a pipe or a device would wait forever"));
    if (std::string inside = special_file_in_folder(resolved); !inside.empty() && s.type == OptionType::ModelPath)
      diags.push_back(make_error(v.loc, path, "expected regular files in the folder, but " + inside,
                                 "replace it with the file itself; reading a pipe or a device would wait forever"));
    if (s.must_exist && !fs::exists(resolved)) {
      bool explicit_relative = v.s.rfind("./", 0) == 0 || v.s.rfind("../", 0) == 0;
      std::string root_hint =
          explicit_relative ? "paths starting with ./ or ../ are relative to the recipe's folder"
          : s.type == OptionType::DataPath
              ? "the data root is " + root_for(s, v, options.recipe_path) + " (set RUNNER_DATA)"
          : s.type == OptionType::ModelPath ? "the model root is " + root_for(s, v, options.recipe_path) +
                                                  " (set RUNNER_MODELS)"
                                            : "relative paths start at the recipe's folder";
      diags.push_back(make_error(v.loc, path,
                                 fmt::format("path \"{}\" does not exist (resolved to {})", v.s,
                                             resolved),
                                 root_hint));
    }
    return resolved;
  }

  nlohmann::ordered_json section(const SectionSpec& spec, const Value* value) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    if (value && !value->is_table()) {
      diags.push_back(make_error(value->loc, spec.name,
                                 "expected a table (section), found " + found_str(*value),
                                 "write [" + spec.name + "] followed by its keys"));
      value = nullptr;
    }
    const Component* component = selected_component(spec, value, reg);
    if (const Component* from_folder = component_of_folder(spec, value)) {
      check_selector_matches(spec, value, component, from_folder);
      component = from_folder;
    }
    if (spec.component_kind && !component) {
      report_unknown_component(spec, value);
      return out;
    }
    std::vector<OptionSpec> specs = section_options(spec, component);
    std::vector<std::string> known;
    for (const auto& s : specs) known.push_back(s.name);
    if (value)
      for (const auto& [k, v] : value->table)
        if (!find_option(specs, k)) {
          std::string where = "[" + spec.name + "]";
          if (component) where += " with " + spec.selector_key + " \"" + component->spec.name + "\"";
          unknown_key(spec.name + "." + k, k, v, known, where);
        }
    for (const auto& s : specs) {
      const Value* v = value ? value->find(s.name) : nullptr;
      std::string path = spec.name + "." + s.name;
      if (!v && s.required) {
        diags.push_back(make_error(value ? value->loc : SourceLocation{options.recipe_path, 0, 0, {}},
                                   path, "required option \"" + s.name + "\" is missing (" +
                                             s.doc + ")",
                                   "add " + s.name + " = ... to [" + spec.name + "]"));
        continue;
      }
      out[s.name] = option_value(s, v, path);
    }
    fill_derived_defaults(specs, value, out);
    if (component) out[spec.selector_key] = component->spec.name;
    return out;
  }

  // After every other option has its value: a derived default may read any of them.
  static void fill_derived_defaults(const std::vector<OptionSpec>& specs, const Value* value,
                                    nlohmann::ordered_json& out) {
    const nlohmann::json section = nlohmann::json::parse(out.dump());
    for (const auto& s : specs)
      if (s.derived_default && !(value && value->find(s.name)))
        out[s.name] = nlohmann::ordered_json::parse(s.derived_default(section).dump());
  }

  // Where a section's folder option (model.pretrained) points, a Hub id located
  // (fetched) as check_path does; empty when it cannot be resolved. Asked for
  // the tokenizer's default and the model's family: located once.
  std::string located_folder(const SectionSpec& spec, const Value& folder) {
    const std::string key = spec.name + "." + spec.folder_option + "=" + folder.s;
    if (auto known = located_.find(key); known != located_.end()) return known->second;
    return located_[key] = locate_folder(spec, folder);
  }

  std::string locate_folder(const SectionSpec& spec, const Value& folder) {
    const OptionSpec folder_spec = opt::model_path(spec.folder_option, "", "");
    std::string folder_path = resolve_path(folder_spec, folder, options.recipe_path);
    if (!path_length_problem(folder_path).empty()) return {};
    if (!options.check_paths) return folder_path;
    try {
      return hub::locate(name_request(folder_spec, folder, spec.name + "." + spec.folder_option, folder_path));
    } catch (const InputError&) {
      return {};
    }
  }

  // A recipe that names a pretrained model and no tokenizer path reads the model
  // folder's own tokenizer when it has one (vocab.txt or tokenizer.json), as
  // AutoTokenizer.from_pretrained(model_name_or_path) does: a fine-tune of MiniLM
  // never tokenizes with bert-base-uncased's vocabulary by default. Only for a
  // tokenizer type that takes a path.
  Value with_model_tokenizer(const Value& root) {
    const Value* model = root.find("model");
    const Value* pretrained = model && model->is_table() ? model->find("pretrained") : nullptr;
    if (!pretrained || pretrained->type != Value::Type::String || pretrained->s.empty()) return root;
    const Value* tokenizer = root.find("tokenizer");
    if (tokenizer && (!tokenizer->is_table() || tokenizer->find("path"))) return root;
    const Component* type = selected_component(*find_section("tokenizer"), tokenizer, reg);
    if (!type || !find_option(type->spec.options, "path")) return root;
    const fs::path folder = located_folder(*find_section("model"), *pretrained);
    std::error_code ec;
    if (folder.empty() || !(fs::is_regular_file(folder / "vocab.txt", ec) ||
                            fs::is_regular_file(folder / "tokenizer.json", ec)))
      return root;
    Value out = root;
    Value section = tokenizer ? *tokenizer : Value::make_table(pretrained->loc);
    section.set("path", *pretrained);
    out.set("tokenizer", section);
    return out;
  }

  // [model] pretrained = DIR: the component whose model_type DIR/config.json
  // names. Null when the section has no such option set or the file is not
  // readable (the path check reports a missing folder).
  const Component* component_of_folder(const SectionSpec& spec, const Value* value) {
    if (spec.folder_option.empty() || !value || !value->is_table()) return nullptr;
    const Value* folder = value->find(spec.folder_option);
    if (!folder || folder->type != Value::Type::String || folder->s.empty()) return nullptr;
    std::string folder_path = located_folder(spec, *folder);
    if (folder_path.empty()) return nullptr;  // check_path reports it with the option's value
    fs::path config = fs::path(folder_path) / "config.json";
    nlohmann::json j;
    try {
      j = read_json_document(config.string());
    } catch (const InputError&) {
      return nullptr;  // reading the model reports it
    }
    if (!j.is_object() || !j.contains("model_type")) return nullptr;
    std::string type = j["model_type"].is_string() ? j["model_type"].get<std::string>() : j["model_type"].dump();
    if (const Component* c = find_model_type(reg, type)) return c;
    diags.push_back(make_error(folder->loc, spec.name + "." + spec.folder_option,
                               fmt::format("{} has model_type \"{}\", which no model reads (known model "
                                           "types: {})", config.string(), type, join(known_model_types(reg))),
                               "point it at a folder of a known family, or load the plugin that reads it"));
    return nullptr;
  }

  void check_selector_matches(const SectionSpec& spec, const Value* value, const Component* chosen,
                              const Component* from_folder) {
    const Value* sel = value->find(spec.selector_key);
    if (!sel || chosen == from_folder) return;
    diags.push_back(make_error(
        sel->loc, spec.name + "." + spec.selector_key,
        fmt::format("type \"{}\" differs from the model_type \"{}\" of the {} folder", sel->s,
                    from_folder->spec.hf_model_type, spec.folder_option),
        fmt::format("remove {} (the folder's config.json picks the family), or set it to \"{}\"",
                    spec.selector_key, from_folder->spec.name)));
  }

  void report_unknown_component(const SectionSpec& spec, const Value* value) {
    const Value* sel = value ? value->find(spec.selector_key) : nullptr;
    std::string path = spec.name + "." + spec.selector_key;
    std::vector<std::string> known = reg.names(*spec.component_kind);
    if (sel && sel->type != Value::Type::String) {
      diags.push_back(make_error(sel->loc, path,
                                 "expected the name of a " + kind_name(*spec.component_kind) +
                                     " (string), found " + found_str(*sel),
                                 "known: " + join(known)));
      return;
    }
    std::string name = sel ? sel->s : spec.default_component;
    std::string hint = did_you_mean(name, known);
    diags.push_back(make_error(sel ? sel->loc : SourceLocation{options.recipe_path, 0, 0, {}}, path,
                               "unknown " + kind_name(*spec.component_kind) + " \"" + name +
                                   "\" (known " + kind_name(*spec.component_kind) + "s: " +
                                   join(known) + ")",
                               hint.empty() ? "run `runner plugins` to list every component, or "
                                              "load a plugin that provides it"
                                            : hint));
  }
};

}  // namespace

std::string option_mismatch(const OptionSpec& s, const Value& v) {
  std::string expected = "expected " + s.expectation() + ", found " + found_str(v);
  switch (s.type) {
    case OptionType::Choice: {
      if (v.type != Value::Type::String) return expected;
      for (const auto& c : s.choices)
        if (c == v.s) return {};
      return expected;
    }
    case OptionType::IntList:
    case OptionType::NumberList:
    case OptionType::StringList:
      if (v.type != Value::Type::List) return expected;
      if ((s.min_items && static_cast<long long>(v.list.size()) < *s.min_items) ||
          (s.max_items && static_cast<long long>(v.list.size()) > *s.max_items))
        return fmt::format("expected {}, found a list of {} element{} {}", s.expectation(), v.list.size(),
                           v.list.size() == 1 ? "" : "s", v.short_str());
      for (const auto& item : v.list)
        if (!scalar_fits(element_type(s.type), s, item))
          return "expected " + s.expectation() + ", found element " + found_str(item);
      return {};
    case OptionType::StringMap:
    case OptionType::IntMap:
      if (v.type != Value::Type::Table) return expected;
      for (const auto& [k, item] : v.table)
        if (!scalar_fits(element_type(s.type), s, item))
          return "expected " + s.expectation() + ", found " + found_str(item) + " at key \"" + k + "\"";
      return {};
    default: return scalar_fits(s.type, s, v) ? std::string() : expected;
  }
}

const Component* selected_component(const SectionSpec& section, const Value* section_value,
                                    const Registry& reg) {
  if (!section.component_kind) return nullptr;
  const Value* sel = section_value ? section_value->find(section.selector_key) : nullptr;
  if (sel && sel->type != Value::Type::String) return nullptr;
  return reg.find(*section.component_kind, sel ? sel->s : section.default_component);
}

std::vector<OptionSpec> section_options(const SectionSpec& section, const Component* component) {
  std::vector<OptionSpec> specs;
  if (section.component_kind) {
    specs.push_back(opt::text(section.selector_key, section.default_component,
                              "Which " + kind_name(*section.component_kind) + " component to use"));
  }
  specs.insert(specs.end(), section.options.begin(), section.options.end());
  if (component)
    specs.insert(specs.end(), component->spec.options.begin(), component->spec.options.end());
  return specs;
}

nlohmann::ordered_json resolve_tree(const Value& given, const Registry& reg,
                                    const ResolveOptions& options, Diagnostics& diags) {
  SectionResolver resolver{reg, options, diags};
  const Value root = resolver.with_model_tokenizer(given);
  std::vector<std::string> known;
  for (const auto& o : top_level_options()) known.push_back(o.name);
  for (const auto& s : recipe_sections()) known.push_back(s.name);
  for (const auto& [k, v] : root.table)
    if (!find_section(k) && !find_option(top_level_options(), k))
      resolver.unknown_key(k, k, v, known, "the recipe's top level");

  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& o : top_level_options())
    if (o.name != "extends") out[o.name] = resolver.option_value(o, root.find(o.name), o.name);
  for (const auto& s : recipe_sections()) out[s.name] = resolver.section(s, root.find(s.name));

  // A name of the wrong type (`name:` with nothing after it is null) is already a diagnostic.
  nlohmann::ordered_json& run = out["run"];
  if (run.is_object() && run.contains("name") && run["name"] == "")
    run["name"] = fs::path(options.recipe_path).stem().string();
  return out;
}

}  // namespace runner
