// Each built-in family's ModelFamily: its configuration from the recipe's
// options, and the LibTorch modules built from a config.json.
#include "model/families.h"

#include "model/bert.h"
#include "model/bert_component.h"
#include "model/deberta_v2.h"
#include "model/deberta_v2_component.h"
#include "model/distilbert.h"
#include "model/distilbert_component.h"
#include "model/electra.h"
#include "model/electra_component.h"
#include "model/modernbert.h"
#include "model/modernbert_component.h"
#include "model/roberta.h"
#include "model/roberta_component.h"
#include "model/roberta_config.h"

namespace runner {
namespace {

ModelFamily bert_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return bert_config_to_json(bert_config_from_options(options, context));
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) {
    return std::make_shared<BertForSequenceClassification>(bert_config_from_json(config, where), init);
  };
  return f;
}

ModelFamily distilbert_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return distilbert_config_to_json(distilbert_config_from_options(options, context));
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) {
    return std::make_shared<DistilBertForSequenceClassification>(
        distilbert_config_from_json(config, where), init);
  };
  return f;
}

ModelFamily electra_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return electra_config_to_json(electra_config_from_options(options, context));
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) {
    return std::make_shared<ElectraForSequenceClassification>(electra_config_from_json(config, where), init);
  };
  return f;
}

ModelFamily roberta_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return roberta_config_to_json(roberta_config_from_options(options, context));
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) {
    return std::make_shared<RobertaForSequenceClassification>(roberta_config_from_json(config, where), init);
  };
  return f;
}

ModelFamily deberta_v2_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return deberta_v2_config_to_json(deberta_v2_config_from_options(options, context));
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) {
    return std::make_shared<DebertaV2ForSequenceClassification>(deberta_v2_config_from_json(config, where), init);
  };
  return f;
}

ModelFamily modernbert_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return modernbert_config_to_json(modernbert_config_from_options(options, context));
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) {
    return std::make_shared<ModernBertForSequenceClassification>(modernbert_config_from_json(config, where), init);
  };
  return f;
}

}  // namespace

const FamilyBuilders& family_builders() {
  static const FamilyBuilders builders{bert_family(), distilbert_family(), electra_family(), roberta_family(),
                                       deberta_v2_family(), modernbert_family()};
  return builders;
}

}  // namespace runner
