// The sections of a recipe. Each section's own options are declared by the
// module that uses them (run/, data/, train/, parallel/, optim/); a section may
// also select a component (data.dataset, model.type, ...) whose options then
// join the section's.
#pragma once

#include "registry/option.h"
#include "registry/registry.h"

#include <optional>
#include <string>
#include <vector>

namespace runner {

struct SectionSpec {
  std::string name;
  std::string doc;
  std::vector<OptionSpec> options;        // options every recipe may set here
  std::optional<Kind> component_kind;     // the kind selected in this section, if any
  std::string selector_key;               // "dataset" or "type"
  std::string default_component;          // used when the selector is absent
  // A folder option whose config.json "model_type" picks the component when
  // the selector is absent ([model] pretrained); empty: none.
  std::string folder_option;
};

// All sections, in the order print-config and the schema list them.
const std::vector<SectionSpec>& recipe_sections();
const SectionSpec* find_section(const std::string& name);

// Top-level keys outside sections ("extends", "plugins").
const std::vector<OptionSpec>& top_level_options();

// Declared by their owners.
SectionSpec run_section();        // run/run_options.cpp
SectionSpec data_section();       // data/data_options.cpp
SectionSpec tokenizer_section();  // data/data_options.cpp
SectionSpec model_section();      // model/model_options.cpp
SectionSpec lora_section();       // model/lora_options.cpp
SectionSpec optimizer_section();  // optim/optim_options.cpp
SectionSpec scheduler_section();  // optim/optim_options.cpp
SectionSpec train_section();      // train/train_options.cpp
SectionSpec topology_section();   // parallel/topology_options.cpp

}  // namespace runner
