// What changed between a run's start and its resume: the resolved recipe key
// by key and the content of its data and tokenizer files, and the refusal of
// every change not allowed. Free of LibTorch.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

// One difference between what a run was started with and what it resumes with.
struct RunChange {
  std::string key;  // "train.epochs", or "content_sha256./path/to/train.tsv"
  std::string before, after;  // JSON text; "(absent)" when missing on one side
};

// Key-by-key differences of two resolved recipes.
std::vector<RunChange> recipe_changes(const nlohmann::json& before, const nlohmann::json& after);
// Differences of two path -> sha256 maps.
std::vector<RunChange> content_changes(const nlohmann::json& before, const nlohmann::json& after);

// Throws InputError showing every change not named in `allowed` (a key, or a
// prefix of keys such as "train" or "content_sha256").
void check_changes(const std::vector<RunChange>& changes, const std::vector<std::string>& allowed,
                   const std::string& run_dir);

}  // namespace runner
