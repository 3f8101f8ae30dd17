// A section's options bound to the fields of a plain struct: each option is
// declared once, together with the field it writes, so the schema, the
// defaults, `runner describe` and the typed settings the code reads cannot
// drift apart, and an option without a field cannot be declared.
#pragma once

#include "registry/option.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace runner {

template <class Settings>
class OptionBinding {
 public:
  // An option whose value is stored as is (integer, number, flag, text, list).
  template <class T>
  OptionBinding& bind(OptionSpec spec, T Settings::*field) {
    Entry e{std::move(spec), {}, {}};
    e.write = [field](const nlohmann::json& v, Settings& s) { s.*field = v.get<T>(); };
    e.read = [field](const Settings& s) { return nlohmann::json(s.*field); };
    entries_.push_back(std::move(e));
    return *this;
  }

  // A choice stored as an enum: `names` pairs each choice with its value and
  // is the option's list of choices.
  template <class E>
  OptionBinding& bind_choice(OptionSpec spec, E Settings::*field,
                             std::vector<std::pair<std::string, E>> names) {
    spec.choices.clear();
    for (const auto& [name, value] : names) spec.choices.push_back(name);
    Entry e{std::move(spec), {}, {}};
    e.write = [field, names](const nlohmann::json& v, Settings& s) {
      for (const auto& [name, value] : names)
        if (name == v.template get<std::string>()) { s.*field = value; return; }
      throw std::invalid_argument("not one of the declared choices: " + v.dump());
    };
    e.read = [field, names](const Settings& s) {
      for (const auto& [name, value] : names)
        if (value == s.*field) return nlohmann::json(name);
      return nlohmann::json();
    };
    entries_.push_back(std::move(e));
    return *this;
  }

  std::vector<OptionSpec> specs() const {
    std::vector<OptionSpec> out;
    for (const auto& e : entries_) out.push_back(e.spec);
    return out;
  }

  // The settings of a resolved section; an option it lacks takes its declared
  // default, or the default derived from the section's other options.
  Settings decode(const nlohmann::json& section) const {
    nlohmann::json filled = section.is_object() ? section : nlohmann::json::object();
    for (const auto& e : entries_)
      if (!filled.contains(e.spec.name) && !e.spec.derived_default) filled[e.spec.name] = e.spec.default_value;
    for (const auto& e : entries_)
      if (!filled.contains(e.spec.name)) filled[e.spec.name] = e.spec.derived_default(filled);
    Settings s{};
    for (const auto& e : entries_) e.write(filled.at(e.spec.name), s);
    return s;
  }

  Settings defaults() const { return decode(nlohmann::json::object()); }

  // The section that decodes to `s`: every option's value as it is stored.
  nlohmann::json encode(const Settings& s) const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& e : entries_) out[e.spec.name] = e.read(s);
    return out;
  }

 private:
  struct Entry {
    OptionSpec spec;
    std::function<void(const nlohmann::json&, Settings&)> write;
    std::function<nlohmann::json(const Settings&)> read;
  };
  std::vector<Entry> entries_;
};

}  // namespace runner
