// Loads a WordPiece tokenizer from a model folder (or one file in it):
// vocab.txt (+ tokenizer_config.json), or a Hugging Face tokenizer.json.
#pragma once

#include "tokenizer/wordpiece.h"

#include <filesystem>
#include <memory>
#include <string>

namespace runner {

struct WordPieceSource {
  std::string path;                // a folder, a vocab.txt or a tokenizer.json
  std::string format = "auto";     // "auto" (vocab.txt first), "vocab_txt", "tokenizer_json"
  std::string lowercase = "auto";  // "auto" (from the files), "true", "false"
};

std::shared_ptr<const WordPieceTokenizer> load_wordpiece(const WordPieceSource& source);

// The file a source reads: itself, or from a folder vocab.txt or tokenizer.json
// as `format` says. Throws InputError when the folder has neither.
std::filesystem::path tokenizer_file(const WordPieceSource& source);

}  // namespace runner
