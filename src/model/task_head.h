// Which task head a model carries. A config.json says it in "architectures"
// ("BertForTokenClassification"): the family's prefix, then the head's suffix.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

enum class TaskHead { SequenceClassification, TokenClassification, QuestionAnswering };

// "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering".
const char* architecture_suffix(TaskHead head);

// The head that config.json's first architecture names; a sequence classifier
// when it names none the runner knows (a base model's folder has a bare "BertModel").
TaskHead task_head_of(const nlohmann::json& hf_config);

// `hf_config` with its architecture's head suffix replaced by `head`'s.
nlohmann::json with_task_head(nlohmann::json hf_config, TaskHead head);

}  // namespace runner
