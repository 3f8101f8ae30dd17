// A Hugging Face tokenizer.json as the wordpiece tokenizer loads it (model
// vocab, normalizer flags, added tokens).
#include "fuzz_support.h"
#include "fuzz_targets.h"

namespace runner::fuzz {

void tokenizer_json(std::string_view bytes) {
  load_and_encode(write_scratch("tj/tokenizer.json", bytes), "tokenizer_json");
}

}  // namespace runner::fuzz
