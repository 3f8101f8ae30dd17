// The question answering goldens (tests/model/golden/qa, made by
// scripts/golden/qa_head_parity.py): a tiny *ForQuestionAnswering per family,
// its batches with answer start and end positions, and Transformers' results.
#pragma once

#include "token_golden.h"

namespace runner::test {

inline std::string qa_golden(const std::string& rel) { return source_dir() + "/tests/model/golden/qa/" + rel; }

inline nlohmann::ordered_json qa_expected(const std::string& family) {
  std::ifstream in(qa_golden(family + ".json"));
  return nlohmann::ordered_json::parse(in);
}

// The loss over each row's tokens (scripts/golden/qa_head_parity.py --tokens-only).
inline nlohmann::ordered_json qa_tokens_expected(const std::string& family) {
  std::ifstream in(qa_golden(family + "_tokens.json"));
  return nlohmann::ordered_json::parse(in);
}

// Batch `i` of the golden, labels [B, 2]: each row's start and end position.
inline ModelBatch qa_batch(const nlohmann::ordered_json& expected, size_t i) {
  const auto& b = expected.at("batches").at(i);
  ModelBatch m;
  m.input_ids = token_int_matrix(b.at("input_ids"));
  m.attention_mask = token_int_matrix(b.at("attention_mask"));
  m.token_type_ids = b.contains("token_type_ids") ? token_int_matrix(b.at("token_type_ids"))
                                                  : torch::zeros_like(m.input_ids);
  auto column = [&](const char* key) {
    return torch::tensor(b.at(key).get<std::vector<int64_t>>(), torch::kInt64);
  };
  m.labels = torch::stack({column("start_positions"), column("end_positions")}, 1);
  return m;
}

// [8, L, 2] logits of the golden's forward: start logits, then end logits.
inline torch::Tensor qa_logits(const nlohmann::ordered_json& expected) {
  auto side = [&](const char* key) {
    std::vector<double> flat;
    const auto& rows = expected.at("forward").at(key);
    for (const auto& row : rows)
      for (const auto& v : row) flat.push_back(v.get<double>());
    return torch::tensor(flat, torch::kFloat64).view({static_cast<int64_t>(rows.size()), -1});
  };
  return torch::stack({side("start_logits"), side("end_logits")}, 2);
}

}  // namespace runner::test
