// A tokenizer.json of any pipeline (BPE, Unigram, WordPiece with their
// normalizers, pre-tokenizers and post-processors) loaded as a recipe's
// tokenizer.path loads it, then run on text. The input is the file, a NUL
// byte, and up to three texts separated by NUL bytes: JSON holds no raw NUL,
// so the cut is unambiguous. Without a NUL the texts are fixed ones. Every id
// and type id an encoding gives must index the tables a model builds from the
// tokenizer: one outside them is a finding, as LibTorch's "index out of range"
// would be in a run.
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "tokenizer/encoding.h"
#include "tokenizer/tokenizer_loader.h"
#include "util/utf8.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace runner::fuzz {
namespace {

// The texts after the file, each cut at its first byte that is not UTF-8:
// the data readers refuse such a row before it reaches a tokenizer.
std::vector<std::string_view> texts_after(std::string_view bytes, size_t nul) {
  std::vector<std::string_view> texts;
  while (nul != std::string_view::npos && texts.size() < 3) {
    const size_t start = nul + 1;
    nul = bytes.find('\0', start);
    std::string_view text = bytes.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start);
    texts.push_back(text.substr(0, std::min(text.size(), find_invalid_utf8(text))));
  }
  if (texts.empty()) texts = {"The film's na\u00efve \u6771\u4eac charm, unbelievably!", "a ## <unk> [UNK] </s>",
                              "  \u2581supercalifragilisticexpialidocious\t\n"};
  while (texts.size() < 3) texts.push_back(texts.front());
  return texts;
}

void require_indexable(const Encoding& e, const Tokenizer& tok) {
  if (e.input_ids.size() != e.token_type_ids.size())
    throw std::logic_error("tokenizer_pipeline: ids and type ids differ in length");
  for (int32_t id : e.input_ids) {
    if (id < 0 || static_cast<size_t>(id) >= tok.vocab_size())
      throw std::logic_error("tokenizer_pipeline: id " + std::to_string(id) + " outside the vocabulary of " +
                             std::to_string(tok.vocab_size()));
    tok.id_to_token(id);
  }
  for (int32_t type : e.token_type_ids)
    if (type < 0 || type > 255) throw std::logic_error("tokenizer_pipeline: type id " + std::to_string(type));
}

}  // namespace

void tokenizer_pipeline(std::string_view bytes) {
  const size_t nul = bytes.find('\0');
  const std::string path = write_scratch("tp/tokenizer.json", bytes.substr(0, nul));
  const std::vector<std::string_view> texts = texts_after(bytes, nul);
  refusing_is_fine([&] {
    auto tok = load_tokenizer({path, "tokenizer_json", "auto"});
    EncodeOptions opts;
    opts.max_length = 24;
    require_indexable(encode(*tok, texts[0], texts[1], opts), *tok);
    opts.max_length = 512;
    require_indexable(encode(*tok, texts[2], std::nullopt, opts), *tok);
    // Last: only_second refuses a pair whose first text alone is too long.
    opts.max_length = 24;
    opts.truncation = Truncation::OnlySecond;
    require_indexable(encode(*tok, texts[2], texts[0], opts), *tok);
  });
}

}  // namespace runner::fuzz
