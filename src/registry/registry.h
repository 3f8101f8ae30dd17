// The component registry. Built-ins are added from one explicit list
// (registry/builtins.cpp) exactly once; plugins add more when loaded.
// Static initialisers are not used: they vanish from static libraries.
#pragma once

#include "registry/option.h"
#include "registry/problem_type.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace runner {

enum class Kind { Dataset, Tokenizer, Model, Optimizer, Scheduler, Metric, Logger };

const std::vector<Kind>& all_kinds();
std::string kind_name(Kind k);                        // "dataset"
std::optional<Kind> kind_from_name(const std::string& s);

struct ComponentSpec {
  Kind kind = Kind::Dataset;
  std::string name;
  std::string doc;  // one line
  std::vector<OptionSpec> options;
  // Model kind: the config.json "model_type" this component reads and writes.
  std::string hf_model_type = {};
  // Model kind: why this model cannot train under CPU bf16 autocast; empty = it can.
  std::string cpu_bf16_refusal = {};
  // Checks, at validate time, what only the component can judge in the whole
  // resolved recipe (its settings together, its size against this machine).
  // Each problem names its key path ("model.hidden_size"); the recipe layer
  // adds the location. Empty: nothing to check.
  std::function<Diagnostics(const nlohmann::json& resolved_recipe)> recipe_check = {};
  // Metric kind: the problem types it is defined for. Empty: single-label
  // classification, what every metric read before problem types existed.
  std::vector<ProblemType> problem_types = {};
  // Metric kind: the most classes it is defined for (0: any), and the metrics
  // to name instead past them ("macro_f1, micro_f1 or weighted_f1").
  int most_classes = 0;
  std::string past_most_classes = {};
};

// Whether metric `spec` is defined for problem type `p`.
bool metric_fits(const ComponentSpec& spec, ProblemType p);

// A registered component. `factory` holds the kind's typed factory
// (each kind's header defines it, e.g. SchedulerFactory); the registry stays
// free of LibTorch and of every kind's types. In the front runner, which links
// no LibTorch, a model's and an optimizer's factory is empty (model/families.h).
struct Component {
  ComponentSpec spec;
  std::any factory;
  std::string origin = "built-in";  // or the plugin's path
};

class Registry {
 public:
  // Returns an error message (empty on success): a name registered twice is an error.
  std::string add(ComponentSpec spec, std::any factory, std::string origin = "built-in");

  const Component* find(Kind kind, const std::string& name) const;
  std::vector<const Component*> list(Kind kind) const;  // sorted by name
  std::vector<std::string> names(Kind kind) const;
  // Components are never removed, so the count tells one state of the registry from another.
  size_t size() const { return components_.size(); }

  // The factory of `name`, cast to the kind's factory type F.
  template <class F>
  const F& factory(Kind kind, const std::string& name) const {
    const Component* c = find(kind, name);
    if (!c) throw std::logic_error("no " + kind_name(kind) + " named '" + name + "' is registered");
    const F* f = std::any_cast<F>(&c->factory);
    if (!f) throw std::logic_error(kind_name(kind) + " '" + name + "' has a factory of another type");
    return *f;
  }

 private:
  std::map<std::pair<Kind, std::string>, Component> components_;
};

// The process-wide registry, with the built-ins registered on first use.
Registry& registry();

// The component `name` of `kind` from the process-wide registry, called with
// `args`: the one way every module builds a component.
template <class F, class... Args>
auto instantiate(Kind kind, const std::string& name, Args&&... args) {
  return registry().factory<F>(kind, name)(std::forward<Args>(args)...);
}

// The registered Model component whose hf_model_type is `model_type`; null if none.
const Component* find_model_type(const Registry& r, const std::string& model_type);
// Every config.json model_type a registered Model component reads, by component name.
std::vector<std::string> known_model_types(const Registry& r);

// Fills `r` with every built-in component; defined in registry/builtins.cpp.
void register_builtins(Registry& r);

}  // namespace runner
