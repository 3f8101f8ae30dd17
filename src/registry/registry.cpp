#include "registry/registry.h"
#include "registry/builtins.h"

#include <fmt/format.h>

namespace runner {

const std::vector<Kind>& all_kinds() {
  static const std::vector<Kind> kinds = {Kind::Dataset, Kind::Tokenizer, Kind::Model,
                                          Kind::Optimizer, Kind::Scheduler, Kind::Metric,
                                          Kind::Logger};
  return kinds;
}

std::string kind_name(Kind k) {
  switch (k) {
    case Kind::Dataset: return "dataset";
    case Kind::Tokenizer: return "tokenizer";
    case Kind::Model: return "model";
    case Kind::Optimizer: return "optimizer";
    case Kind::Scheduler: return "scheduler";
    case Kind::Metric: return "metric";
    case Kind::Logger: return "logger";
  }
  return "?";
}

bool metric_fits(const ComponentSpec& spec, ProblemType p) {
  if (spec.problem_types.empty()) return p == ProblemType::SingleLabel;
  for (ProblemType fit : spec.problem_types)
    if (fit == p) return true;
  return false;
}

std::optional<Kind> kind_from_name(const std::string& s) {
  for (Kind k : all_kinds())
    if (kind_name(k) == s) return k;
  return std::nullopt;
}

std::string Registry::add(ComponentSpec spec, std::any factory, std::string origin) {
  auto key = std::make_pair(spec.kind, spec.name);
  auto it = components_.find(key);
  if (it != components_.end())
    return fmt::format("{} '{}' is registered twice: first by {}, again by {}",
                       kind_name(spec.kind), spec.name, it->second.origin, origin);
  if (const Component* same = find_model_type(*this, spec.hf_model_type))
    return fmt::format("model '{}' reads model_type '{}', which model '{}' ({}) already reads",
                       spec.name, spec.hf_model_type, same->spec.name, same->origin);
  for (size_t i = 0; i < spec.options.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (spec.options[i].name == spec.options[j].name)
        return fmt::format("{} '{}' declares option '{}' twice", kind_name(spec.kind), spec.name,
                           spec.options[i].name);
  Component c{std::move(spec), std::move(factory), std::move(origin)};
  components_.emplace(key, std::move(c));
  return {};
}

const Component* Registry::find(Kind kind, const std::string& name) const {
  auto it = components_.find({kind, name});
  return it == components_.end() ? nullptr : &it->second;
}

std::vector<const Component*> Registry::list(Kind kind) const {
  std::vector<const Component*> out;
  for (const auto& [key, c] : components_)
    if (key.first == kind) out.push_back(&c);
  return out;  // std::map orders by (kind, name)
}

std::vector<std::string> Registry::names(Kind kind) const {
  std::vector<std::string> out;
  for (const Component* c : list(kind)) out.push_back(c->spec.name);
  return out;
}

const Component* find_model_type(const Registry& r, const std::string& model_type) {
  for (const Component* c : r.list(Kind::Model))
    if (!model_type.empty() && c->spec.hf_model_type == model_type) return c;
  return nullptr;
}

std::vector<std::string> known_model_types(const Registry& r) {
  std::vector<std::string> types;
  for (const Component* c : r.list(Kind::Model))
    if (!c->spec.hf_model_type.empty()) types.push_back(c->spec.hf_model_type);
  return types;
}

Registry& registry() {
  static Registry instance;
  static std::once_flag once;
  std::call_once(once, [] { register_builtins(instance); });
  return instance;
}

}  // namespace runner

namespace runner {

void add_builtin(Registry& r, ComponentSpec spec, std::any factory) {
  std::string err = r.add(std::move(spec), std::move(factory));
  if (!err.empty()) throw std::logic_error(err);
}

}  // namespace runner
