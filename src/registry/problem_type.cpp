#include "registry/problem_type.h"

namespace runner {

std::string problem_type_name(ProblemType p) {
  switch (p) {
    case ProblemType::SingleLabel: return "single_label_classification";
    case ProblemType::MultiLabel: return "multi_label_classification";
    case ProblemType::Regression: return "regression";
    case ProblemType::TokenClassification: return "token_classification";
    case ProblemType::QuestionAnswering: return "question_answering";
  }
  return "?";
}

std::optional<ProblemType> problem_type_from_name(const std::string& name) {
  for (ProblemType p : {ProblemType::SingleLabel, ProblemType::MultiLabel, ProblemType::Regression,
                        ProblemType::TokenClassification})
    if (problem_type_name(p) == name) return p;
  return std::nullopt;
}

}  // namespace runner
