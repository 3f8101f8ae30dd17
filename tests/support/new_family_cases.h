// The three families added beside BERT, each with a golden tokenizer.json of
// its kind (tests/tokenizer/golden, trained on GLUE text by
// scripts/golden/tokenizer_json_goldens.py), for the tests that train them
// end to end.
#pragma once

#include "shared.h"

#include <filesystem>
#include <string>

namespace runner::test {

struct NewFamilyCase {
  const char* type;
  const char* preset;
  const char* tokenizer;  // tests/tokenizer/golden/<name>.tokenizer.json
};

inline const NewFamilyCase kNewFamilyCases[] = {{"roberta", "roberta-base", "roberta_bpe"},
                                                {"deberta-v2", "deberta-v3-base", "deberta_spm"},
                                                {"modernbert", "modernbert-base", "modernbert_bpe"}};

// A folder under `dir` holding golden tokenizer `name` as tokenizer.json, as a model folder would.
inline std::string golden_tokenizer_folder(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  const std::string folder = dir + "/tok_" + name;
  fs::create_directories(folder);
  fs::copy_file(source_dir() + "/tests/tokenizer/golden/" + name + ".tokenizer.json", folder + "/tokenizer.json",
                fs::copy_options::overwrite_existing);
  return folder;
}

}  // namespace runner::test
