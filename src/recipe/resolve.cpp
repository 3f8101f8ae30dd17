#include "recipe/resolve.h"

#include "hub/named_sources.h"
#include "recipe/foreign_names.h"
#include "recipe/option_value.h"
#include "recipe/path_option.h"
#include "recipe/unsupported.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/paths.h"
#include "util/suggest.h"

#include <fmt/format.h>

#include <filesystem>
#include <iterator>
#include <map>

namespace runner {
namespace fs = std::filesystem;
namespace {

struct SectionResolver {
  const Registry& reg;
  const ResolveOptions& options;
  Diagnostics& diags;
  std::map<std::string, std::string> located_ = {};  // located_folder's answers

  void unknown_key(const std::string& path, const std::string& key, const Value& v,
                   const std::vector<std::string>& known, const std::string& where) {
    std::string hint = unknown_key_hint(key, &v, path);
    if (hint.empty()) hint = did_you_mean(key, known);
    if (hint.empty()) hint = "known keys in " + where + ": " + join(known);
    diags.push_back(make_error(v.loc, path, "unknown key \"" + key + "\" in " + where, hint));
  }

  nlohmann::ordered_json option_value(const OptionSpec& s, const Value* v, const std::string& path) {
    if (!v && is_path_type(s.type) && !s.default_value.get<std::string>().empty()) {
      Value def = Value::make_string(s.default_value.get<std::string>(),
                                     SourceLocation{{}, 0, 0, "the default of " + path});
      return check_path_option(s, def, path, options, diags);
    }
    if (!v) return nlohmann::ordered_json::parse(s.default_value.dump());
    std::string mismatch = option_mismatch(s, *v);
    if (!mismatch.empty()) {
      std::string hint;
      if (s.type == OptionType::Choice && v->type == Value::Type::String)
        hint = unsupported_feature(v->s).value_or(did_you_mean(v->s, s.choices));
      diags.push_back(make_error(v->loc, path, mismatch, hint));
      return nullptr;
    }
    if (is_path_type(s.type) && !v->s.empty()) return check_path_option(s, *v, path, options, diags);
    return coerce_option(s, *v);
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
  // A refused value is null here (its error is already recorded): the derived
  // defaults see it as left out, as they would read it with json::value's fallback.
  static void fill_derived_defaults(const std::vector<OptionSpec>& specs, const Value* value,
                                    nlohmann::ordered_json& out) {
    nlohmann::json section = nlohmann::json::parse(out.dump());
    for (auto it = section.begin(); it != section.end();) it = it->is_null() ? section.erase(it) : std::next(it);
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
    std::string folder_path = resolve_path_option(folder_spec, folder, options.recipe_path);
    if (!path_length_problem(folder_path).empty()) return {};
    if (!options.check_paths) return folder_path;
    try {
      return hub::locate(path_name_request(folder_spec, folder, spec.name + "." + spec.folder_option, folder_path));
    } catch (const InputError&) {
      return {};
    }
  }

  // A recipe that names a pretrained model and no tokenizer path reads the model
  // folder's own tokenizer when it has one (vocab.txt, tokenizer.json, or a
  // DeBERTa folder's spm.model), as
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
                            fs::is_regular_file(folder / "tokenizer.json", ec) ||
                            fs::is_regular_file(folder / "spm.model", ec)))
      return root;
    Value out = root;
    Value section = tokenizer ? *tokenizer : Value::make_table(pretrained->loc);
    section.set("path", *pretrained);
    out.set("tokenizer", section);
    return out;
  }

  // A pretrained model's config.json that names its problem_type sets the
  // dataset's, as Transformers' model takes config.problem_type before its
  // num_labels rule: a multi-label checkpoint fine-tunes as multi-label. A
  // recipe's own data.problem_type stays; one that names another type is
  // refused, naming both. Only for a dataset with a problem_type option.
  Value with_problem_type_of(const Value& root) {
    const Value* model = root.find("model");
    const Value* pretrained = model && model->is_table() ? model->find("pretrained") : nullptr;
    const Value* data = root.find("data");
    if (!pretrained || pretrained->type != Value::Type::String || pretrained->s.empty() || !data || !data->is_table())
      return root;
    const Component* dataset = selected_component(*find_section("data"), data, reg);
    if (!dataset || !find_option(dataset->spec.options, "problem_type")) return root;
    const fs::path folder = located_folder(*find_section("model"), *pretrained);
    if (folder.empty()) return root;
    nlohmann::json config;
    try {
      config = read_json_document((folder / "config.json").string());
    } catch (const InputError&) {
      return root;  // reading the model reports it
    }
    const auto it = config.is_object() ? config.find("problem_type") : config.end();
    if (it == config.end() || !it->is_string() || it->get<std::string>().empty()) return root;
    const std::string from_model = it->get<std::string>();
    const Value* given = data->find("problem_type");
    if (given && given->type == Value::Type::String && given->s != "auto") {
      if (given->s != from_model)
        diags.push_back(make_error(given->loc, "data.problem_type",
                                   fmt::format("data.problem_type = \"{}\", but the pretrained model's {} says "
                                               "problem_type = \"{}\"",
                                               given->s, (folder / "config.json").string(), from_model),
                                   fmt::format("remove data.problem_type to train as the model was made "
                                               "(\"{}\"), or set it to \"{}\"", from_model, from_model)));
      return root;
    }
    Value out = root;
    Value section = *data;
    section.set("problem_type", Value::make_string(from_model, SourceLocation{(folder / "config.json").string(), 0, 0,
                                                                              "model.pretrained's problem_type"}));
    out.set("data", section);
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
  const Value root = resolver.with_problem_type_of(resolver.with_model_tokenizer(given));
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
