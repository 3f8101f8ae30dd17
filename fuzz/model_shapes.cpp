// A model folder's config.json as each family's component judges it for a
// recipe's model.pretrained (what `runner validate` and a run do first): the
// family's reader and range checks, then the shape the budget takes from it
// (parameter counts by part, positions) and the memory refusal. Nothing is
// allocated for the weights, so a config asking for 10^15 layers or 10^9
// labels must be refused by arithmetic, within the fuzzer's second and 1 GB.
// One target per family, so that each reader gets the fuzzer's whole time.
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "registry/registry.h"

#include <filesystem>
#include <stdexcept>

namespace runner::fuzz {
namespace {

// The [model] section a recipe resolves to with only model.pretrained set.
nlohmann::json section_of(const ComponentSpec& spec, const std::string& folder) {
  nlohmann::json section = nlohmann::json::object();
  for (const OptionSpec& o : spec.options)
    if (!o.default_value.is_null()) section[o.name] = o.default_value;
  section["type"] = spec.name;
  section["pretrained"] = folder;
  return section;
}

void model_shape(const std::string& family, std::string_view bytes) {
  const Component* model = registry().find(Kind::Model, family);
  if (!model || !model->spec.recipe_check) throw std::logic_error("model_shape: no model component " + family);
  const std::string config = write_scratch("ms-" + family + "/config.json", bytes);
  // An empty weight file: the folder is complete, and only config.json decides.
  const std::string folder = config.substr(0, config.size() - std::string("/config.json").size());
  if (!std::filesystem::exists(folder + "/model.safetensors")) write_scratch("ms-" + family + "/model.safetensors", "");
  const nlohmann::json recipe = {{"model", section_of(model->spec, folder)},
                                 {"data", {{"max_length", 128}, {"pad_to_multiple_of", 8}}}};
  refusing_is_fine([&] { model->spec.recipe_check(recipe); });
}

}  // namespace

void model_shape_bert(std::string_view bytes) { model_shape("bert", bytes); }
void model_shape_roberta(std::string_view bytes) { model_shape("roberta", bytes); }
void model_shape_distilbert(std::string_view bytes) { model_shape("distilbert", bytes); }
void model_shape_electra(std::string_view bytes) { model_shape("electra", bytes); }
void model_shape_deberta(std::string_view bytes) { model_shape("deberta-v2", bytes); }
void model_shape_modernbert(std::string_view bytes) { model_shape("modernbert", bytes); }

}  // namespace runner::fuzz
