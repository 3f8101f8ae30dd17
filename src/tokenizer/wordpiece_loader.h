// Loads a WordPiece tokenizer from a model folder (or one file in it):
// vocab.txt (+ tokenizer_config.json), or a Hugging Face tokenizer.json.
#pragma once

#include "tokenizer/wordpiece.h"

#include <memory>
#include <string>

namespace runner {

struct WordPieceSource {
  std::string path;                // a folder, a vocab.txt or a tokenizer.json
  std::string format = "auto";     // "auto" (vocab.txt first), "vocab_txt", "tokenizer_json"
  std::string lowercase = "auto";  // "auto" (from the files), "true", "false"
};

std::shared_ptr<const WordPieceTokenizer> load_wordpiece(const WordPieceSource& source);

// The registration of the 'wordpiece' tokenizer component.
class Registry;
void register_tokenizers(Registry& r);

}  // namespace runner
