// `runner describe SECTION|KIND [NAME] [--json]`: the options a recipe may set,
// read from their declarations. A component is shown with the options of the
// section that selects it, since a recipe writes both under the same table
// ([optimizer] lr = ... beside adamw's betas).
#include "cli/commands.h"

#include "recipe/sections.h"
#include "util/suggest.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <iostream>

namespace runner {
namespace {

using ojson = nlohmann::ordered_json;

void print_json(const ojson& j) { std::cout << j.dump(2, ' ', false, ojson::error_handler_t::replace) << "\n"; }

std::string default_text(const OptionSpec& o) { return o.required ? "(required)" : o.default_value.dump(); }

std::string options_table(const std::vector<OptionSpec>& options) {
  std::string s;
  for (const auto& o : options) {
    std::string allowed = o.type == OptionType::Choice ? join(o.choices, "|") : o.expectation();
    s += fmt::format("  {:<26} {:<40} default {}\n      {}\n", o.name, allowed, default_text(o), o.doc);
  }
  return s.empty() ? "  (no options)\n" : s;
}

ojson option_json(const OptionSpec& o) {
  ojson j = {{"name", o.name}, {"type", option_type_name(o.type)}, {"expected", o.expectation()},
             {"required", o.required}, {"default", o.required ? ojson() : ojson::parse(o.default_value.dump())},
             {"doc", o.doc}};
  if (!o.choices.empty()) j["choices"] = o.choices;
  j["schema"] = ojson::parse(o.json_schema().dump());
  return j;
}

ojson options_json(const std::vector<OptionSpec>& options) {
  ojson a = ojson::array();
  for (const auto& o : options) a.push_back(option_json(o));
  return a;
}

ojson components_json(Kind kind) {
  ojson a = ojson::array();
  for (const Component* c : registry().list(kind))
    a.push_back({{"name", c->spec.name}, {"doc", c->spec.doc}, {"origin", c->origin}});
  return a;
}

// The section whose selector picks components of `kind` ([optimizer] type = ...).
const SectionSpec* section_of_kind(Kind kind) {
  for (const auto& s : recipe_sections())
    if (s.component_kind && *s.component_kind == kind) return &s;
  return nullptr;
}

int unknown_component(Kind kind, const std::string& name) {
  std::vector<std::string> known = registry().names(kind);
  std::string hint = did_you_mean(name, known);
  std::cerr << terminal_safe(fmt::format("error: unknown {} \"{}\" (known: {}){}\n", kind_name(kind), name,
                                         join(known), hint.empty() ? "" : "\n  hint: " + hint),
                             true);
  return kExitBadInput;
}

void print_component(Kind kind, const Component& c, bool json) {
  const SectionSpec* section = section_of_kind(kind);
  if (json) {
    ojson j = {{"kind", kind_name(kind)}, {"name", c.spec.name}, {"origin", c.origin}, {"doc", c.spec.doc},
               {"options", options_json(c.spec.options)}};
    if (section) j["section"] = section->name, j["section_options"] = options_json(section->options);
    print_json(j);
    return;
  }
  std::cout << fmt::format("{} \"{}\" ({}): {}\n\noptions:\n{}", kind_name(kind), c.spec.name, c.origin,
                           c.spec.doc, options_table(c.spec.options));
  if (section)
    std::cout << fmt::format("\noptions of [{}] (every {}):\n{}", section->name, kind_name(kind),
                             options_table(section->options));
}

int describe_kind(Kind kind, const std::string& name, bool json) {
  if (!name.empty()) {
    const Component* c = registry().find(kind, name);
    if (!c) return unknown_component(kind, name);
    print_component(kind, *c, json);
    return kExitOk;
  }
  if (json) {
    print_json({{"kind", kind_name(kind)}, {"components", components_json(kind)}});
    return kExitOk;
  }
  std::cout << fmt::format("{} components:\n", kind_name(kind));
  for (const Component* c : registry().list(kind))
    std::cout << fmt::format("  {:<24} {}\n", c->spec.name, c->spec.doc);
  return kExitOk;
}

int describe_section(const SectionSpec& s, bool json) {
  if (json) {
    ojson j = {{"section", s.name}, {"doc", s.doc}, {"options", options_json(s.options)}};
    if (s.component_kind) {
      j["selector"] = s.selector_key;
      j["default_component"] = s.default_component;
      j["components"] = components_json(*s.component_kind);
    }
    print_json(j);
    return kExitOk;
  }
  std::cout << fmt::format("[{}]: {}\n\noptions:\n{}", s.name, s.doc, options_table(s.options));
  if (!s.component_kind) return kExitOk;
  std::cout << fmt::format("\n{} selects the {} (default \"{}\"); `runner describe {} NAME` "
                           "shows a component's own options.\n\n",
                           s.selector_key, kind_name(*s.component_kind), s.default_component, s.name);
  return describe_kind(*s.component_kind, "", false);
}

}  // namespace

int cmd_describe(const ParsedArgs& args) {
  std::string what = args.positional(0), name = args.positional(1);
  bool json = args.has("--json");
  if (const SectionSpec* s = find_section(what)) {
    if (!name.empty() && s->component_kind) return describe_kind(*s->component_kind, name, json);
    return describe_section(*s, json);
  }
  if (auto kind = kind_from_name(what)) return describe_kind(*kind, name, json);
  std::vector<std::string> known;
  for (const auto& s : recipe_sections()) known.push_back(s.name);
  for (Kind k : all_kinds()) known.push_back(kind_name(k));
  std::string hint = did_you_mean(what, known);
  std::cerr << terminal_safe(fmt::format("error: describe: unknown section or kind \"{}\" (known: {}){}\n", what,
                                         join(known), hint.empty() ? "" : "\n  hint: " + hint),
                             true);
  return kExitBadInput;
}

}  // namespace runner
