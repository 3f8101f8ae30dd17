// vocab.txt as the wordpiece tokenizer loads it (one token per line).
#include "fuzz_support.h"
#include "fuzz_targets.h"

namespace runner::fuzz {

void vocab_txt(std::string_view bytes) {
  load_and_encode(write_scratch("vt/vocab.txt", bytes), "vocab_txt");
}

}  // namespace runner::fuzz
