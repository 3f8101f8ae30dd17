// What the dataset tells a model family. Torch-free: a family's options and
// configuration (model/bert_component.h ...) are read by the front runner too.
#pragma once

#include "data/dataset.h"
#include "model/task_head.h"

#include <string>
#include <vector>

namespace runner {

struct ModelContext {
  long long num_labels = 2;               // 1 = regression (MSE)
  std::vector<std::string> label_names;   // id -> name; may be empty
  // Transformers' problem_type name; empty: regression when num_labels == 1,
  // else single-label classification.
  std::string problem_type;
  // The head the model is built with (its config.json's architectures).
  TaskHead head = TaskHead::SequenceClassification;
};

// What a dataset's task tells the model: its classes and problem type, or a
// token classification or question answering head (Transformers has no
// problem_type for them). A QA head has two outputs: start and end.
inline ModelContext model_context_of(const DatasetInfo& info) {
  if (info.problem_type == ProblemType::TokenClassification)
    return ModelContext{info.num_labels, info.label_names, {}, TaskHead::TokenClassification};
  if (info.problem_type == ProblemType::QuestionAnswering)
    return ModelContext{2, {}, {}, TaskHead::QuestionAnswering};
  return ModelContext{info.num_labels, info.label_names, problem_type_name(info.problem_type),
                      TaskHead::SequenceClassification};
}

}  // namespace runner
