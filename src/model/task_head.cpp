#include "model/task_head.h"

namespace runner {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string first_architecture(const nlohmann::json& c) {
  auto it = c.find("architectures");
  if (it == c.end() || !it->is_array() || it->empty() || !(*it)[0].is_string()) return {};
  return (*it)[0].get<std::string>();
}

}  // namespace

const char* architecture_suffix(TaskHead head) {
  switch (head) {
    case TaskHead::TokenClassification: return "ForTokenClassification";
    case TaskHead::QuestionAnswering: return "ForQuestionAnswering";
    case TaskHead::SequenceClassification: break;
  }
  return "ForSequenceClassification";
}

TaskHead task_head_of(const nlohmann::json& hf_config) {
  const std::string name = first_architecture(hf_config);
  for (TaskHead head : {TaskHead::TokenClassification, TaskHead::QuestionAnswering})
    if (ends_with(name, architecture_suffix(head))) return head;
  return TaskHead::SequenceClassification;
}

nlohmann::json with_task_head(nlohmann::json hf_config, TaskHead head) {
  std::string name = first_architecture(hf_config);
  const std::string current = architecture_suffix(task_head_of(hf_config));
  if (ends_with(name, current)) name.resize(name.size() - current.size());
  hf_config["architectures"] = {name + architecture_suffix(head)};
  return hf_config;
}

}  // namespace runner
