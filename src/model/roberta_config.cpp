#include "model/roberta_config.h"

#include "model/hf_config_fields.h"

#include <fmt/format.h>

#include <stdexcept>

namespace runner {
namespace {

// transformers' RobertaConfig defaults where they differ from BertConfig's.
BertConfig roberta_defaults() {
  BertConfig c;
  c.vocab_size = 50265;
  c.max_position_embeddings = 514;  // 512 positions after the pad_token_id + 1 offset
  c.type_vocab_size = 1;
  c.layer_norm_eps = 1e-5;
  c.pad_token_id = 1;
  return c;
}

}  // namespace

const std::vector<std::string>& roberta_preset_names() {
  static const std::vector<std::string> names = {"roberta-base", "distilroberta-base", "xlm-roberta-base"};
  return names;
}

BertConfig roberta_preset(const std::string& name) {
  // FacebookAI/roberta-base (Liu et al. 2019), distilbert/distilroberta-base (6 layers)
  // and FacebookAI/xlm-roberta-base (Conneau et al. 2020: a 250002-token vocabulary).
  BertConfig c = roberta_defaults();
  if (name == "roberta-base") return c;
  if (name == "distilroberta-base") {
    c.num_hidden_layers = 6;
    return c;
  }
  if (name == "xlm-roberta-base") {
    c.vocab_size = 250002;
    return c;
  }
  throw std::invalid_argument("unknown RoBERTa preset '" + name + "'");
}

BertConfig roberta_config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) config_error(where, "", "expected a JSON object (a Hugging Face config.json)");
  const std::string model_type = string_field(j, "model_type", "roberta", where);
  if (model_type != "roberta" && model_type != "xlm-roberta")
    config_error(where, "model_type", fmt::format("expected \"roberta\", found \"{}\"", model_type),
                 "model.type = \"roberta\" reads RoBERTa and XLM-RoBERTa checkpoints only");
  // BERT's parser reads the rest, with RoBERTa's defaults filled in first.
  nlohmann::json bert = j;
  bert["model_type"] = "bert";
  const BertConfig d = roberta_defaults();
  for (const auto& [key, value] : {std::pair<const char*, nlohmann::json>{"vocab_size", d.vocab_size},
                                   {"max_position_embeddings", d.max_position_embeddings},
                                   {"type_vocab_size", d.type_vocab_size},
                                   {"layer_norm_eps", d.layer_norm_eps},
                                   {"pad_token_id", d.pad_token_id}})
    if (!bert.contains(key) || bert.at(key).is_null()) bert[key] = value;
  BertConfig c = bert_config_from_json(bert, where);
  validate_roberta_config(c, where);
  return c;
}

void validate_roberta_config(const BertConfig& c, const std::string& where) {
  validate_bert_config(c, where);
  if (c.pad_token_id < 0 || c.pad_token_id + 2 >= c.max_position_embeddings)
    config_error(where, "max_position_embeddings",
                 fmt::format("RoBERTa counts positions from pad_token_id + 1 = {}, which leaves no room in a "
                             "table of {} positions",
                             c.pad_token_id + 1, c.max_position_embeddings),
                 "set max_position_embeddings to the longest sequence + pad_token_id + 1 (514 for roberta-base)");
}

nlohmann::json roberta_config_to_json(const BertConfig& c) {
  // An XLM-RoBERTa checkpoint is exported as RoBERTa: the same network, which
  // Transformers loads under either name.
  nlohmann::json j = bert_config_to_json(c);
  j["architectures"] = {"RobertaForSequenceClassification"};
  j["model_type"] = "roberta";
  if (!j.contains("bos_token_id")) j["bos_token_id"] = 0;
  if (!j.contains("eos_token_id")) j["eos_token_id"] = 2;
  return j;
}

}  // namespace runner
