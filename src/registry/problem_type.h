// The kinds of task a model learns: a sequence classifier's, named as
// Transformers names its `problem_type`, and token classification (one class
// per token: NER) and extractive question answering (an answer's start and
// end token: SQuAD). Datasets say which one they are; metrics say which ones
// they are defined for, so that validate can refuse a metric that does not fit.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace runner {

enum class ProblemType { SingleLabel, MultiLabel, Regression, TokenClassification, QuestionAnswering };

// "single_label_classification", "multi_label_classification", "regression",
// "token_classification", "question_answering" (no Transformers problem_type:
// each its own head).
std::string problem_type_name(ProblemType p);
std::optional<ProblemType> problem_type_from_name(const std::string& name);

}  // namespace runner
