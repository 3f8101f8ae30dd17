// A model folder's config.json as `model.pretrained` and `runner predict` read
// it: the JSON file, then the reader and the checks of the family its
// model_type names (the labels included). The model itself is not built: its
// size is what the config says, and a valid config may ask for gigabytes.
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "model/bert_config.h"
#include "model/distilbert_config.h"
#include "model/electra_config.h"
#include "model/hf_config_fields.h"

namespace runner::fuzz {

void config_json(std::string_view bytes) {
  const std::string path = write_scratch("cj/config.json", bytes);
  refusing_is_fine([&] {
    nlohmann::json j = read_config_file(path);
    std::string type = string_field(j, "model_type", "bert", path);
    if (type == "distilbert")
      validate_distilbert_config(distilbert_config_from_json(j, path), path);
    else if (type == "electra")
      validate_electra_config(electra_config_from_json(j, path), path);
    else
      validate_bert_config(bert_config_from_json(j, path), path);
    validate_label_fields(read_label_fields(j, path), path);
  });
}

}  // namespace runner::fuzz
