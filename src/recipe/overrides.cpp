#include "recipe/overrides.h"

#include "recipe/foreign_names.h"
#include "recipe/parse.h"
#include "recipe/resolve.h"
#include "recipe/unsupported.h"
#include "util/suggest.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace runner {
namespace {

std::vector<std::string> split_dots(const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(key.substr(start, dot - start));
  parts.push_back(key.substr(start));
  return parts;
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    return s.substr(1, s.size() - 2);
  return s;
}

// A TOML value parsed from text, e.g. "[1, 2]" or "{ a = 1 }".
std::optional<Value> parse_toml_value(const std::string& text, const SourceLocation& /*loc*/) {
  ParsedFile parsed = parse_toml_text("v = " + text, "--set");
  if (!parsed.root || has_errors(parsed.diags)) return std::nullopt;
  Value v = *parsed.root->find("v");
  return v;
}

std::optional<Value> parse_scalar(OptionType t, const std::string& text) {
  Value v;
  if (t == OptionType::Bool) {
    if (text != "true" && text != "false") return std::nullopt;
    v.type = Value::Type::Bool;
    v.b = text == "true";
  } else if (t == OptionType::Int || t == OptionType::Number) {
    // strtod reads hexadecimal ("0x10" as 16), which integers here refuse: numbers refuse it too.
    if (text.find_first_of("xX") != std::string::npos) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    long long i = std::strtoll(text.c_str(), &end, 10);
    if (!text.empty() && *end == '\0' && errno == 0) {
      v.type = Value::Type::Int;
      v.i = i;
    } else {
      double f = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || t == OptionType::Int) return std::nullopt;
      v.type = Value::Type::Float;
      v.f = f;
      if (!std::isfinite(f)) v.s = text;  // "1e999": the option check names it and its overflow
    }
  } else {
    v.type = Value::Type::String;
    v.s = unquote(text);
  }
  return v;
}

OptionType element_of(OptionType t) {
  if (t == OptionType::IntList || t == OptionType::IntMap) return OptionType::Int;
  if (t == OptionType::NumberList) return OptionType::Number;
  return OptionType::String;
}

std::optional<Value> parse_typed(const OptionSpec& spec, const std::string& text,
                                 const SourceLocation& loc) {
  switch (spec.type) {
    case OptionType::IntList:
    case OptionType::NumberList:
    case OptionType::StringList: {
      if (!text.empty() && text.front() == '[') return parse_toml_value(text, loc);
      Value list;
      list.type = Value::Type::List;
      if (text.empty()) return list;
      size_t start = 0;
      while (true) {
        size_t comma = text.find(',', start);
        auto item = parse_scalar(element_of(spec.type), text.substr(start, comma - start));
        if (!item) return std::nullopt;
        list.list.push_back(*item);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return list;
    }
    case OptionType::StringMap:
    case OptionType::IntMap: return parse_toml_value(text, loc);
    default: return parse_scalar(spec.type, text);
  }
}

// `text` with every byte outside printable ASCII shown as '?', for a message
// about text that is not UTF-8.
std::string printable(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) c = '?';
  return text;
}

void set_located(Value& v, const SourceLocation& loc) {
  v.loc = loc;
  for (auto& item : v.list) set_located(item, loc);
  for (auto& [k, item] : v.table) set_located(item, loc);
}

struct OverrideApplier {
  Value& root;
  const Registry& reg;
  Diagnostics& diags;

  void apply(const std::string& set) {
    if (std::optional<InvalidUtf8> bad = first_invalid_utf8(set)) {
      diags.push_back(make_error(SourceLocation{{}, 0, 0, "--set " + printable(set)}, "",
                                 fmt::format("{} at character {}: a --set value is UTF-8 text",
                                             bad->what(), bad->column),
                                 "pass the value as UTF-8 (check the shell's locale)"));
      return;
    }
    // A value of kilobytes (a path past the system's limit) is named, not printed whole.
    std::string shown = set.size() > 200 ? fmt::format("{}... ({} bytes)", set.substr(0, 120), set.size()) : set;
    SourceLocation loc{{}, 0, 0, "--set " + shown};
    size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      diags.push_back(make_error(loc, "", "expected KEY=VALUE, e.g. --set optimizer.lr=3e-5"));
      return;
    }
    std::string key = set.substr(0, eq), text = set.substr(eq + 1);
    std::vector<std::string> parts = split_dots(key);
    if (parts.size() == 1) return apply_top_level(parts[0], text, loc);
    const SectionSpec* section = find_section(parts[0]);
    if (!section) {
      std::vector<std::string> names;
      for (const auto& s : recipe_sections()) names.push_back(s.name);
      diags.push_back(make_error(loc, key, "unknown section \"" + parts[0] + "\"",
                                 unsupported_feature(parts[0]).value_or(closest_or_list(parts[0], names))));
      return;
    }
    apply_in_section(*section, parts, key, text, loc);
  }

  // `given`: the --set value of the unknown key, kept in a hint that names the right key.
  static std::string closest_or_list(const std::string& found, const std::vector<std::string>& known,
                                     const std::optional<std::string>& given = std::nullopt) {
    Value value = given ? set_text_value(*given) : Value();
    std::string hint = unknown_key_hint(found, given ? &value : nullptr);
    if (hint.empty()) hint = did_you_mean(found, known);
    return hint.empty() ? "known: " + join(known) : hint;
  }

  void apply_top_level(const std::string& name, const std::string& text, const SourceLocation& loc) {
    const OptionSpec* spec = find_option(top_level_options(), name);
    if (!spec || name == "extends") {
      std::vector<std::string> known = {"plugins"};
      for (const auto& s : recipe_sections()) known.push_back(s.name + ".<option>");
      diags.push_back(make_error(loc, name, "unknown key \"" + name + "\" for --set",
                                 closest_or_list(name, known, text)));
      return;
    }
    store(root, name, *spec, text, loc, name);
  }

  void apply_in_section(const SectionSpec& section, const std::vector<std::string>& parts,
                        const std::string& key, const std::string& text, const SourceLocation& loc) {
    Value* table = root.find(section.name);
    if (!table || !table->is_table()) {
      root.set(section.name, Value::make_table(loc));
      table = root.find(section.name);
    }
    const Component* component = selected_component(section, table, reg);
    std::vector<OptionSpec> specs = section_options(section, component);
    const OptionSpec* spec = find_option(specs, parts[1]);
    bool map_entry = parts.size() == 3 && spec &&
                     (spec->type == OptionType::StringMap || spec->type == OptionType::IntMap);
    if (!spec || (parts.size() > 2 && !map_entry)) {
      std::vector<std::string> known;
      for (const auto& s : specs) known.push_back(s.name);
      std::string where = "[" + section.name + "]";
      if (component) where += " with " + section.selector_key + " \"" + component->spec.name + "\"";
      diags.push_back(make_error(loc, key, "unknown key \"" + key + "\": no option \"" +
                                               parts[1] + "\" in " + where,
                                 closest_or_list(parts[1], known, text)));
      return;
    }
    if (!map_entry) return store(*table, parts[1], *spec, text, loc, key);
    Value* map = table->find(parts[1]);
    if (!map || !map->is_table()) {
      table->set(parts[1], Value::make_table(loc));
      map = table->find(parts[1]);
    }
    OptionSpec element = *spec;
    element.type = element_of(spec->type);
    store(*map, parts[2], element, text, loc, key);
  }

  void store(Value& table, const std::string& name, const OptionSpec& spec, const std::string& text,
             const SourceLocation& loc, const std::string& key) {
    std::optional<Value> v = parse_typed(spec, text, loc);
    if (!v) {
      // [console,jsonl]: TOML's list wants quoted items; --set takes bare ones.
      const bool list = spec.type == OptionType::StringList || spec.type == OptionType::IntList ||
                        spec.type == OptionType::NumberList;
      std::string hint;
      if (list && !text.empty() && text.front() == '[' && text.back() == ']')
        hint = fmt::format("write the items separated by commas, without brackets: --set {}={}", key,
                           text.substr(1, text.size() - 2));
      diags.push_back(make_error(loc, key, fmt::format("expected {}, found \"{}\"",
                                                       spec.expectation(), text), hint));
      return;
    }
    set_located(*v, loc);
    table.set(name, *v);
  }
};

}  // namespace

void apply_overrides(Value& root, const std::vector<std::string>& sets, const Registry& reg,
                     Diagnostics& diags) {
  OverrideApplier applier{root, reg, diags};
  for (const auto& set : sets) applier.apply(set);
}

std::vector<std::string> settable_keys(const Registry& reg) {
  std::vector<std::string> keys;
  auto add = [&keys](const std::string& key) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  };
  for (const auto& o : top_level_options())
    if (o.name != "extends") add(o.name);  // --set refuses it: extends is read before overrides
  for (const auto& section : recipe_sections()) {
    std::vector<const Component*> components = {nullptr};
    if (section.component_kind)
      for (const Component* c : reg.list(*section.component_kind)) components.push_back(c);
    for (const Component* c : components)
      for (const auto& o : section_options(section, c)) add(section.name + "." + o.name);
  }
  return keys;
}

}  // namespace runner
