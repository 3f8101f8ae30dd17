#include "model/deberta_v2_config.h"
#include "model/model_budget.h"

#include "model/hf_config_fields.h"

#include <fmt/format.h>

#include <stdexcept>

namespace runner {
namespace {

const std::vector<std::string>& deberta_keys() {
  static const std::vector<std::string> keys = {
      "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
      "hidden_act", "max_position_embeddings", "type_vocab_size", "layer_norm_eps", "hidden_dropout_prob",
      "attention_probs_dropout_prob", "initializer_range", "pad_token_id", "relative_attention",
      "max_relative_positions", "position_buckets", "share_att_key", "pos_att_type", "norm_rel_ebd",
      "position_biased_input", "pooler_hidden_size", "pooler_dropout", "pooler_hidden_act", "cls_dropout"};
  return keys;
}

// transformers' DebertaV2Config defaults.
DebertaV2Config deberta_defaults() {
  DebertaV2Config c;
  BertConfig& e = c.encoder;
  e.vocab_size = 128100;
  e.hidden_size = 1536;
  e.num_hidden_layers = 24;
  e.num_attention_heads = 24;
  e.intermediate_size = 6144;
  e.type_vocab_size = 0;
  e.layer_norm_eps = 1e-7;
  e.pad_token_id = 0;
  return c;
}

// microsoft/deberta-v3-*: 128100 tokens, 256 log buckets over 512 positions, both
// attention directions with shared keys, no absolute positions, no token types.
DebertaV2Config v3(long long hidden, long long layers, long long heads) {
  DebertaV2Config c = deberta_defaults();
  c.encoder.hidden_size = hidden;
  c.encoder.num_hidden_layers = layers;
  c.encoder.num_attention_heads = heads;
  c.encoder.intermediate_size = 4 * hidden;
  c.relative_attention = true;
  c.position_buckets = 256;
  c.share_att_key = c.c2p = c.p2c = c.norm_rel_ebd = true;
  c.position_biased_input = false;
  return c;
}

void read_pos_att_type(const nlohmann::json& j, DebertaV2Config& c, const std::string& where) {
  if (!j.contains("pos_att_type") || j.at("pos_att_type").is_null()) return;
  std::vector<std::string> kinds;
  const nlohmann::json& v = j.at("pos_att_type");
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    for (size_t at = 0; at <= s.size();) {
      size_t bar = s.find('|', at);
      if (bar == std::string::npos) bar = s.size();
      kinds.push_back(s.substr(at, bar - at));
      at = bar + 1;
    }
  } else if (v.is_array()) {
    for (const auto& k : v)
      if (k.is_string()) kinds.push_back(k.get<std::string>());
      else config_error(where, "pos_att_type", "expected a list of \"c2p\" and \"p2c\"");
  } else {
    config_error(where, "pos_att_type", "expected a list of \"c2p\" and \"p2c\"");
  }
  for (const auto& k : kinds)
    if (k == "c2p") c.c2p = true;
    else if (k == "p2c") c.p2c = true;
    else if (!k.empty())
      config_error(where, "pos_att_type", fmt::format("\"{}\" is not built here (c2p and p2c are)", k));
}

}  // namespace

const std::vector<std::string>& deberta_v2_preset_names() {
  static const std::vector<std::string> names = {"deberta-v3-xsmall", "deberta-v3-small", "deberta-v3-base",
                                                 "deberta-v3-large"};
  return names;
}

DebertaV2Config deberta_v2_preset(const std::string& name) {
  // He et al. 2021 (DeBERTaV3): xsmall 12 x 384, small 6 x 768, base 12 x 768, large 24 x 1024.
  if (name == "deberta-v3-xsmall") return v3(384, 12, 6);
  if (name == "deberta-v3-small") return v3(768, 6, 12);
  if (name == "deberta-v3-base") return v3(768, 12, 12);
  if (name == "deberta-v3-large") return v3(1024, 24, 16);
  throw std::invalid_argument("unknown DeBERTa-v2 preset '" + name + "'");
}

DebertaV2Config deberta_v2_config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) config_error(where, "", "expected a JSON object (a Hugging Face config.json)");
  const std::string model_type = string_field(j, "model_type", "deberta-v2", where);
  if (model_type != "deberta-v2")
    config_error(where, "model_type", fmt::format("expected \"deberta-v2\", found \"{}\"", model_type),
                 "model.type = \"deberta-v2\" reads DeBERTa-v2 and DeBERTa-v3 checkpoints (DeBERTa v1 is not built)");
  if (int_field(j, "conv_kernel_size", 0, where) > 0)
    config_error(where, "conv_kernel_size", "the convolution layer of DeBERTa-v2 xlarge/xxlarge is not built here");
  DebertaV2Config c = deberta_defaults();
  BertConfig& e = c.encoder;
  e.vocab_size = int_field(j, "vocab_size", e.vocab_size, where);
  e.hidden_size = int_field(j, "hidden_size", e.hidden_size, where);
  e.num_hidden_layers = int_field(j, "num_hidden_layers", e.num_hidden_layers, where);
  e.num_attention_heads = int_field(j, "num_attention_heads", e.num_attention_heads, where);
  e.intermediate_size = int_field(j, "intermediate_size", e.intermediate_size, where);
  e.hidden_act = string_field(j, "hidden_act", e.hidden_act, where);
  e.max_position_embeddings = int_field(j, "max_position_embeddings", e.max_position_embeddings, where);
  e.type_vocab_size = int_field(j, "type_vocab_size", e.type_vocab_size, where);
  e.layer_norm_eps = number_field(j, "layer_norm_eps", e.layer_norm_eps, where);
  e.hidden_dropout_prob = number_field(j, "hidden_dropout_prob", e.hidden_dropout_prob, where);
  e.attention_probs_dropout_prob =
      number_field(j, "attention_probs_dropout_prob", e.attention_probs_dropout_prob, where);
  e.initializer_range = number_field(j, "initializer_range", e.initializer_range, where);
  e.pad_token_id = int_field(j, "pad_token_id", e.pad_token_id, where);
  c.relative_attention = bool_field(j, "relative_attention", c.relative_attention, where);
  c.max_relative_positions = int_field(j, "max_relative_positions", c.max_relative_positions, where);
  c.position_buckets = int_field(j, "position_buckets", c.position_buckets, where);
  c.share_att_key = bool_field(j, "share_att_key", c.share_att_key, where);
  read_pos_att_type(j, c, where);
  c.norm_rel_ebd = string_field(j, "norm_rel_ebd", "none", where).find("layer_norm") != std::string::npos;
  c.position_biased_input = bool_field(j, "position_biased_input", c.position_biased_input, where);
  c.pooler_hidden_size = int_field(j, "pooler_hidden_size", 0, where);
  c.pooler_dropout = number_field(j, "pooler_dropout", c.pooler_dropout, where);
  c.pooler_hidden_act = string_field(j, "pooler_hidden_act", c.pooler_hidden_act, where);
  if (j.contains("cls_dropout") && !j.at("cls_dropout").is_null())
    c.cls_dropout = number_field(j, "cls_dropout", 0.0, where);
  LabelFields labels = read_label_fields(j, where);
  e.num_labels = labels.num_labels;
  e.id2label = labels.id2label;
  e.problem_type = labels.problem_type;
  e.extra = extra_fields(j, deberta_keys());
  validate_deberta_v2_config(c, where);
  return c;
}

// BERT's count with the absolute position table replaced by the relative one,
// and the relative table's LayerNorm and unshared position projections added.
ParameterCount deberta_parameters(const DebertaV2Config& c) {
  BertConfig shape = c.encoder;
  const double h = double(shape.hidden_size);
  shape.max_position_embeddings =
      (c.position_biased_input ? shape.max_position_embeddings : 0) + (c.relative_attention ? 2 * c.relative_span() : 0);
  ParameterCount p = parameter_count(shape);
  if (c.relative_attention && c.norm_rel_ebd) p.embeddings += 2 * h;
  if (c.relative_attention && !c.share_att_key)
    p.layers += double(shape.num_hidden_layers) * double(c.c2p + c.p2c) * (h * h + h);
  return p;
}

void validate_deberta_v2_config(const DebertaV2Config& c, const std::string& where) {
  const BertConfig& e = c.encoder;
  for (const auto& [key, value] : {std::pair<const char*, long long>{"vocab_size", e.vocab_size},
                                   {"hidden_size", e.hidden_size},
                                   {"num_hidden_layers", e.num_hidden_layers},
                                   {"num_attention_heads", e.num_attention_heads},
                                   {"intermediate_size", e.intermediate_size},
                                   {"max_position_embeddings", e.max_position_embeddings}})
    require_positive(where, key, value);
  if (e.type_vocab_size < 0) config_error(where, "type_vocab_size", "expected 0 or more");
  if (e.hidden_size % e.num_attention_heads != 0)
    config_error(where, "num_attention_heads",
                 fmt::format("hidden_size {} is not a multiple of num_attention_heads {}", e.hidden_size,
                             e.num_attention_heads));
  if (c.pooler_size() != e.hidden_size)
    config_error(where, "pooler_hidden_size", "a pooler wider than hidden_size is not built here");
  if (c.relative_attention && c.position_buckets > 0 && c.max_relative() <= c.position_buckets / 2 + 1)
    config_error(where, "max_relative_positions",
                 fmt::format("the log buckets need max_relative_positions above position_buckets / 2 + 1 = {}",
                             c.position_buckets / 2 + 1));
  require_activation(where, "hidden_act", e.hidden_act);
  require_activation(where, "pooler_hidden_act", c.pooler_hidden_act);
  require_bert_ranges(e, where);
  require_probability(where, "pooler_dropout", c.pooler_dropout);
  if (c.cls_dropout) require_probability(where, "cls_dropout", *c.cls_dropout);
  // Log buckets split position_buckets in halves: one bucket has no half to count from.
  if (c.position_buckets == 1)
    config_error(where, "position_buckets",
                 fmt::format("expected 0 or less (no log buckets) or 2 or more, found {}", c.position_buckets),
                 "DeBERTa-v3 uses 256");
  validate_label_fields({e.num_labels, e.id2label, e.problem_type}, where);
  require_weights_fit(deberta_parameters(c), where);
}

nlohmann::json deberta_v2_config_to_json(const DebertaV2Config& c) {
  const BertConfig& e = c.encoder;
  nlohmann::json j = e.extra;
  j["architectures"] = {"DebertaV2ForSequenceClassification"};
  j["model_type"] = "deberta-v2";
  j["vocab_size"] = e.vocab_size;
  j["hidden_size"] = e.hidden_size;
  j["num_hidden_layers"] = e.num_hidden_layers;
  j["num_attention_heads"] = e.num_attention_heads;
  j["intermediate_size"] = e.intermediate_size;
  j["hidden_act"] = e.hidden_act;
  j["max_position_embeddings"] = e.max_position_embeddings;
  j["type_vocab_size"] = e.type_vocab_size;
  j["layer_norm_eps"] = e.layer_norm_eps;
  j["hidden_dropout_prob"] = e.hidden_dropout_prob;
  j["attention_probs_dropout_prob"] = e.attention_probs_dropout_prob;
  j["initializer_range"] = e.initializer_range;
  j["pad_token_id"] = e.pad_token_id;
  j["relative_attention"] = c.relative_attention;
  j["max_relative_positions"] = c.max_relative_positions;
  j["position_buckets"] = c.position_buckets;
  j["share_att_key"] = c.share_att_key;
  std::vector<std::string> kinds;
  if (c.p2c) kinds.push_back("p2c");
  if (c.c2p) kinds.push_back("c2p");
  j["pos_att_type"] = kinds;
  j["norm_rel_ebd"] = c.norm_rel_ebd ? "layer_norm" : "none";
  j["position_biased_input"] = c.position_biased_input;
  j["pooler_hidden_size"] = c.pooler_size();
  j["pooler_dropout"] = c.pooler_dropout;
  j["pooler_hidden_act"] = c.pooler_hidden_act;
  if (c.cls_dropout) j["cls_dropout"] = *c.cls_dropout;
  j["torch_dtype"] = "float32";
  write_label_fields({e.num_labels, e.id2label, e.problem_type}, j);
  return j;
}

}  // namespace runner
