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

// sha256 of each path, keyed by path (an unreadable file throws InputError).
nlohmann::json content_hashes(const std::vector<std::string>& paths);

// What a resume compares: the recipe and file hashes recorded at the run's
// start against today's.
struct ResumeInputs {
  const nlohmann::json& recorded_recipe;
  nlohmann::json recipe;                   // today's resolved recipe
  nlohmann::json recorded_hashes;          // env.json's content_sha256
  std::vector<std::string> content_files;  // today's data and tokenizer files
};
// Every difference, the batch split's keys left out (a change of split is
// checked against the checkpoint instead); throws InputError showing every
// change not allowed.
std::vector<RunChange> resume_changes(const ResumeInputs& in, const std::vector<std::string>& allowed,
                                      const std::string& run_dir);

}  // namespace runner
