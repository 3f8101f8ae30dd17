#include "model/electra_config.h"

#include "model/hf_config_fields.h"

#include <fmt/format.h>

#include <stdexcept>

namespace runner {
namespace {

ElectraConfig electra_make_preset(long long embedding, long long hidden, long long heads) {
  ElectraConfig c;
  c.embedding_size = embedding;
  c.encoder.hidden_size = hidden;
  c.encoder.num_attention_heads = heads;
  c.encoder.intermediate_size = 4 * hidden;
  return c;
}

}  // namespace

const std::vector<std::string>& electra_preset_names() {
  static const std::vector<std::string> names = {"electra-small", "electra-base"};
  return names;
}

ElectraConfig electra_preset(const std::string& name) {
  // google/electra-{small,base}-discriminator (Clark et al. 2020), 12 layers each.
  if (name == "electra-small") return electra_make_preset(128, 256, 4);
  if (name == "electra-base") return electra_make_preset(768, 768, 12);
  throw std::invalid_argument("unknown ELECTRA preset '" + name + "'");
}

ElectraConfig electra_config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) config_error(where, "", "expected a JSON object (a Hugging Face config.json)");
  std::string model_type = string_field(j, "model_type", "electra", where);
  if (model_type != "electra")
    config_error(where, "model_type", fmt::format("expected \"electra\", found \"{}\"", model_type),
                 "model.type = \"electra\" reads ELECTRA checkpoints only");
  ElectraConfig c = electra_preset("electra-small");
  c.embedding_size = int_field(j, "embedding_size", c.embedding_size, where);
  // BERT's parser reads the rest; the sizes where BERT's defaults differ from
  // ELECTRA's are filled in first.
  nlohmann::json bert = j;
  bert["model_type"] = "bert";
  bert.erase("embedding_size");
  for (const auto& [key, value] : {std::pair<const char*, long long>{"hidden_size", c.encoder.hidden_size},
                                   {"num_attention_heads", c.encoder.num_attention_heads},
                                   {"intermediate_size", c.encoder.intermediate_size}})
    if (!bert.contains(key) || bert.at(key).is_null()) bert[key] = value;
  c.encoder = bert_config_from_json(bert, where);
  validate_electra_config(c, where);
  return c;
}

void validate_electra_config(const ElectraConfig& c, const std::string& where) {
  require_positive(where, "embedding_size", c.embedding_size);
  validate_bert_config(c.encoder, where);
}

nlohmann::json electra_config_to_json(const ElectraConfig& c) {
  nlohmann::json j = bert_config_to_json(c.encoder);
  j["architectures"] = {"ElectraForSequenceClassification"};
  j["model_type"] = "electra";
  j["embedding_size"] = c.embedding_size;
  return j;
}

}  // namespace runner
