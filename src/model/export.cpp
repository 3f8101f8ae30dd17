#include "model/export.h"

#include "model/checkpoint.h"
#include "util/diagnostic.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace runner {

const std::vector<std::string>& tokenizer_file_names() {
  static const std::vector<std::string> names = {"vocab.txt", "tokenizer.json",
                                                 "tokenizer_config.json",
                                                 "special_tokens_map.json"};
  return names;
}

std::vector<std::string> export_hf_folder(SequenceClassifier& model, const std::string& dir,
                                          const std::string& tokenizer_dir) {
  std::vector<std::string> copied;
  if (!tokenizer_dir.empty()) {
    for (const auto& name : tokenizer_file_names())
      if (fs::is_regular_file(fs::path(tokenizer_dir) / name)) copied.push_back(name);
    if (copied.empty())
      throw InputError(make_error(SourceLocation{tokenizer_dir, 0, 0, {}}, "",
                                  "no tokenizer files (vocab.txt, tokenizer.json, ...) in the folder",
                                  "point the tokenizer at the folder the model was trained with"));
  }
  save_pretrained(model, dir);
  for (const auto& name : copied)
    fs::copy_file(fs::path(tokenizer_dir) / name, fs::path(dir) / name,
                  fs::copy_options::overwrite_existing);
  return copied;
}

}  // namespace runner
