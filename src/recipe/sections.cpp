#include "recipe/sections.h"

namespace runner {

const std::vector<SectionSpec>& recipe_sections() {
  static const std::vector<SectionSpec> sections = {
      run_section(),       data_section(),      tokenizer_section(), model_section(),
      lora_section(),      optimizer_section(), scheduler_section(), train_section(),
      topology_section(),
  };
  return sections;
}

const SectionSpec* find_section(const std::string& name) {
  for (const auto& s : recipe_sections())
    if (s.name == name) return &s;
  return nullptr;
}

const std::vector<OptionSpec>& top_level_options() {
  static const std::vector<OptionSpec> options = {
      opt::strings("extends", {},
                   "Recipes this one builds on, merged depth-first in order; this file wins"),
      opt::strings("plugins", {},
                   "Shared libraries that register further components when loaded"),
  };
  return options;
}

}  // namespace runner
