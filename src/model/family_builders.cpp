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
#include "model/question_answerer.h"
#include "model/roberta.h"
#include "model/roberta_component.h"
#include "model/roberta_config.h"
#include "model/task_head.h"
#include "model/token_classifier.h"

namespace runner {
namespace {

// The family's config.json for the head the context asks for.
nlohmann::json for_head(nlohmann::json config, const ModelContext& context) {
  if (context.head == TaskHead::SequenceClassification) return config;
  return with_task_head(std::move(config), context.head);
}

// A head on every token's hidden state: token classification or question answering.
bool per_token_head(const nlohmann::json& config) { return task_head_of(config) != TaskHead::SequenceClassification; }

// A question answering head: most families' has no dropout and names its Linear "qa_outputs".
bool answers(const nlohmann::json& config) { return task_head_of(config) == TaskHead::QuestionAnswering; }

// The head the config's architecture names, on the family's spec.
std::shared_ptr<TaskModel> per_token_model(TokenHeadSpec s, const nlohmann::json& config, Init init) {
  if (answers(config)) return std::make_shared<QuestionAnswerer>(std::move(s), init);
  return std::make_shared<TokenClassifier>(std::move(s), init);
}

std::shared_ptr<TaskModel> bert_tokens(const BertConfig& c, const nlohmann::json& config, Init init) {
  validate_bert_config(c, "model config");
  TokenHeadSpec s{"bert", std::make_shared<BertModel>(c, /*with_pooler=*/false), c.hidden_size, c.num_labels,
                  answers(config) ? 0.0 : c.effective_classifier_dropout()};
  if (answers(config)) s.output_name = "qa_outputs";
  s.hf_config = bert_config_to_json(c);
  s.init = [c](torch::nn::Module& m, const std::vector<std::string>& only) {
    init_bert_weights(m, c, "bert.embeddings.word_embeddings.weight", only);
  };
  return per_token_model(std::move(s), config, init);
}

// DistilBertForQuestionAnswering drops out at qa_dropout.
std::shared_ptr<TaskModel> distilbert_tokens(const DistilBertConfig& c, const nlohmann::json& config, Init init) {
  validate_distilbert_config(c, "model config");
  auto encoder = std::make_shared<DistilBertModel>(c);
  TokenHeadSpec s{"distilbert", encoder, c.dim, c.labels.num_labels, answers(config) ? c.qa_dropout : c.dropout};
  if (answers(config)) s.output_name = "qa_outputs";
  s.hf_config = distilbert_config_to_json(c);
  s.init = [c, encoder](torch::nn::Module& m, const std::vector<std::string>& only) {
    init_distilbert_weights(m, *encoder, c, only);
  };
  return per_token_model(std::move(s), config, init);
}

std::shared_ptr<TaskModel> electra_tokens(const ElectraConfig& c, const nlohmann::json& config, Init init) {
  validate_electra_config(c, "model config");
  TokenHeadSpec s{"electra", std::make_shared<ElectraModel>(c), c.encoder.hidden_size, c.encoder.num_labels,
                  answers(config) ? 0.0 : c.encoder.effective_classifier_dropout()};
  if (answers(config)) s.output_name = "qa_outputs";
  s.hf_config = electra_config_to_json(c);
  s.init = [std_dev = c.encoder.initializer_range](torch::nn::Module& m, const std::vector<std::string>& only) {
    hf_init_leaves(m, std_dev, only);
  };
  return per_token_model(std::move(s), config, init);
}

std::shared_ptr<TaskModel> roberta_tokens(const BertConfig& c, const nlohmann::json& config, Init init) {
  validate_roberta_config(c, "model config");
  TokenHeadSpec s{"roberta", std::make_shared<RobertaModel>(c), c.hidden_size, c.num_labels,
                  answers(config) ? 0.0 : c.effective_classifier_dropout()};
  if (answers(config)) s.output_name = "qa_outputs";
  s.hf_config = roberta_config_to_json(c);
  s.init = [std_dev = c.initializer_range](torch::nn::Module& m, const std::vector<std::string>& only) {
    hf_init_leaves(m, std_dev, only);
  };
  return per_token_model(std::move(s), config, init);
}

// DebertaV2ForTokenClassification drops out at hidden_dropout_prob.
std::shared_ptr<TaskModel> deberta_v2_tokens(const DebertaV2Config& c, const nlohmann::json& config, Init init) {
  validate_deberta_v2_config(c, "model config");
  TokenHeadSpec s{"deberta", std::make_shared<DebertaV2Model>(c), c.encoder.hidden_size, c.encoder.num_labels,
                  answers(config) ? 0.0 : c.encoder.hidden_dropout_prob};
  if (answers(config)) s.output_name = "qa_outputs";
  s.hf_config = deberta_v2_config_to_json(c);
  s.init = [std_dev = c.encoder.initializer_range](torch::nn::Module& m, const std::vector<std::string>& only) {
    hf_init_leaves(m, std_dev, only);
  };
  return per_token_model(std::move(s), config, init);
}

// Both ModernBERT heads are the prediction head, dropout and "classifier".
std::shared_ptr<TaskModel> modernbert_tokens(const ModernBertConfig& c, const nlohmann::json& config, Init init) {
  validate_modernbert_config(c, "model config");
  auto head = std::make_shared<ModernBertPredictionHead>(c);
  TokenHeadSpec s{"model", std::make_shared<ModernBertModel>(c), c.hidden_size, c.labels.num_labels,
                  c.classifier_dropout, head, [head](const torch::Tensor& x) { return head->forward(x); }};
  s.hf_config = modernbert_config_to_json(c);
  s.init = [c](torch::nn::Module& m, const std::vector<std::string>& only) { init_modernbert_weights(m, c, only); };
  return per_token_model(std::move(s), config, init);
}

ModelFamily bert_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return for_head(bert_config_to_json(bert_config_from_options(options, context)), context);
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) -> std::shared_ptr<TaskModel> {
    auto c = bert_config_from_json(config, where);
    if (per_token_head(config)) return bert_tokens(c, config, init);
    return std::make_shared<BertForSequenceClassification>(std::move(c), init);
  };
  return f;
}

ModelFamily distilbert_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return for_head(distilbert_config_to_json(distilbert_config_from_options(options, context)), context);
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) -> std::shared_ptr<TaskModel> {
    auto c = distilbert_config_from_json(config, where);
    if (per_token_head(config)) return distilbert_tokens(c, config, init);
    return std::make_shared<DistilBertForSequenceClassification>(std::move(c), init);
  };
  return f;
}

ModelFamily electra_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return for_head(electra_config_to_json(electra_config_from_options(options, context)), context);
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) -> std::shared_ptr<TaskModel> {
    auto c = electra_config_from_json(config, where);
    if (per_token_head(config)) return electra_tokens(c, config, init);
    return std::make_shared<ElectraForSequenceClassification>(std::move(c), init);
  };
  return f;
}

ModelFamily roberta_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return for_head(roberta_config_to_json(roberta_config_from_options(options, context)), context);
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) -> std::shared_ptr<TaskModel> {
    auto c = roberta_config_from_json(config, where);
    if (per_token_head(config)) return roberta_tokens(c, config, init);
    return std::make_shared<RobertaForSequenceClassification>(std::move(c), init);
  };
  return f;
}

ModelFamily deberta_v2_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return for_head(deberta_v2_config_to_json(deberta_v2_config_from_options(options, context)), context);
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) -> std::shared_ptr<TaskModel> {
    auto c = deberta_v2_config_from_json(config, where);
    if (per_token_head(config)) return deberta_v2_tokens(c, config, init);
    return std::make_shared<DebertaV2ForSequenceClassification>(std::move(c), init);
  };
  return f;
}

ModelFamily modernbert_family() {
  ModelFamily f;
  f.config = [](const nlohmann::json& options, const ModelContext& context) {
    return for_head(modernbert_config_to_json(modernbert_config_from_options(options, context)), context);
  };
  f.construct = [](const nlohmann::json& config, Init init, const std::string& where) -> std::shared_ptr<TaskModel> {
    auto c = modernbert_config_from_json(config, where);
    if (per_token_head(config)) return modernbert_tokens(c, config, init);
    return std::make_shared<ModernBertForSequenceClassification>(std::move(c), init);
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
