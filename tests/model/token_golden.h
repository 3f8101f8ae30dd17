// The token-classification goldens (tests/model/golden/token, made by
// scripts/golden/token_classification_parity.py): a tiny *ForTokenClassification
// per family, its batches with per-token labels, and Transformers' results.
#pragma once

#include "model/model.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace runner::test {

inline const std::vector<std::string>& token_families() {
  static const std::vector<std::string> families{"bert", "distilbert", "electra", "roberta", "deberta-v2",
                                                 "modernbert"};
  return families;
}

inline std::string token_golden(const std::string& rel) {
  return source_dir() + "/tests/model/golden/token/" + rel;
}

// ordered_json keeps the file's key order: grad_norms lists Transformers' parameters in order.
inline nlohmann::ordered_json token_expected(const std::string& family) {
  std::ifstream in(token_golden(family + ".json"));
  return nlohmann::ordered_json::parse(in);
}

inline torch::Tensor token_int_matrix(const nlohmann::ordered_json& rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows)
    for (const auto& v : r) flat.push_back(v.get<int64_t>());
  return torch::tensor(flat, torch::kInt64).view({static_cast<int64_t>(rows.size()), -1});
}

// Batch `i` of the golden: token types where the family reads them, else zeros.
inline ModelBatch token_batch(const nlohmann::ordered_json& expected, size_t i) {
  const auto& b = expected.at("batches").at(i);
  ModelBatch m;
  m.input_ids = token_int_matrix(b.at("input_ids"));
  m.attention_mask = token_int_matrix(b.at("attention_mask"));
  m.labels = token_int_matrix(b.at("labels"));
  m.token_type_ids = b.contains("token_type_ids") ? token_int_matrix(b.at("token_type_ids"))
                                                  : torch::zeros_like(m.input_ids);
  return m;
}

// [B, L, C] values stored as nested lists (logits), as float64.
template <class Json>
torch::Tensor nested_logits(const Json& rows) {
  std::vector<double> flat;
  for (const auto& row : rows)
    for (const auto& position : row)
      for (const auto& v : position) flat.push_back(v.template get<double>());
  const auto batch = static_cast<int64_t>(rows.size()), length = static_cast<int64_t>(rows.at(0).size());
  return torch::tensor(flat, torch::kFloat64).view({batch, length, -1});
}

// [8, L, 5] logits of the golden's forward.
inline torch::Tensor token_logits(const nlohmann::ordered_json& expected) {
  return nested_logits(expected.at("forward").at("logits"));
}

}  // namespace runner::test
