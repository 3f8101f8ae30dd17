// Loading the golden model_parity inputs and the tiny_bert model for tests.
#pragma once

#include "model/bert_component.h"
#include "model/model_factory.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace runner::test {

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

inline std::string golden(const std::string& rel) { return shared_dir() + "/golden/" + rel; }

inline torch::Tensor int_matrix(const nlohmann::json& rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows)
    for (const auto& v : r) flat.push_back(v.get<int64_t>());
  return torch::tensor(flat, torch::kInt64).view({static_cast<int64_t>(rows.size()), -1});
}

// model_parity/batch.json: MRPC dev rows 0-3, padded to [4, 74].
inline ModelBatch parity_batch() {
  auto j = read_json(golden("model_parity/batch.json"));
  ModelBatch b;
  b.input_ids = int_matrix(j.at("input_ids"));
  b.token_type_ids = int_matrix(j.at("token_type_ids"));
  b.attention_mask = int_matrix(j.at("attention_mask"));
  b.labels = torch::tensor(j.at("labels").get<std::vector<int64_t>>(), torch::kInt64);
  return b;
}

inline torch::Tensor float_tensor(const nlohmann::json& j) {  // [N] or [N][M] of numbers
  std::vector<double> flat;
  if (j.at(0).is_array()) {
    for (const auto& r : j)
      for (const auto& v : r) flat.push_back(v.get<double>());
    return torch::tensor(flat, torch::kFloat64).view({static_cast<int64_t>(j.size()), -1});
  }
  for (const auto& v : j) flat.push_back(v.get<double>());
  return torch::tensor(flat, torch::kFloat64);
}

// tiny_bert loaded from one of its weight files (or its folder).
inline std::shared_ptr<BertForSequenceClassification> load_tiny_bert(const std::string& weights) {
  return std::dynamic_pointer_cast<BertForSequenceClassification>(
      load_model_folder(golden("tiny_bert"), weights).model);
}

}  // namespace runner::test
