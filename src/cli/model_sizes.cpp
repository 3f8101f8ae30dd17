// What print-config shows of [model]: the sizes of the model the section
// describes. Its size options are overrides whose defaults mean "keep the
// preset's (or the pretrained config.json's)", so the resolved recipe alone says
// num_hidden_layers = 0; the family's own configuration says 4.
#include "cli/commands.h"

#include "model/model.h"
#include "util/diagnostic.h"

namespace runner {

void show_model_sizes(nlohmann::ordered_json& model_section) {
  if (!model_section.is_object() || !model_section.contains("type")) return;
  const Component* component = registry().find(Kind::Model, model_section["type"].get<std::string>());
  if (!component || !component->factory.has_value()) return;
  const auto* family = std::any_cast<ModelFamily>(&component->factory);
  if (!family || !family->config) return;
  nlohmann::json config;
  try {
    config = family->config(nlohmann::json::parse(model_section.dump()), ModelContext{0, {}});
  } catch (const InputError&) {
    return;  // validation already said what does not fit; show the section as resolved
  }
  for (const auto& option : component->spec.options) {
    auto it = config.find(option.name);
    if (it == config.end() || it->is_null() || it->is_structured() || !model_section.contains(option.name)) continue;
    if (nlohmann::json::parse(model_section[option.name].dump()) == option.default_value)
      model_section[option.name] = nlohmann::ordered_json::parse(it->dump());
  }
}

}  // namespace runner
