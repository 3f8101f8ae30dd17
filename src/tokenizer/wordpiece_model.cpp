#include "tokenizer/wordpiece_model.h"

#include "tokenizer/bpe_model.h"
#include "tokenizer/vocab.h"

#include <algorithm>

namespace runner::hf {

namespace {

size_t code_point_count(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

class WordPieceModel : public Model {
 public:
  WordPieceModel(Vocab vocab, int32_t unk, size_t max_chars) : vocab_(std::move(vocab)), unk_(unk), max_chars_(max_chars) {}

  void tokenize(std::string_view word, std::vector<int32_t>& out) const override {
    if (code_point_count(word) > max_chars_) {
      out.push_back(unk_);
      return;
    }
    const size_t first = out.size();
    for (size_t pos = 0; pos < word.size();) {
      size_t end = pos;
      int32_t id = vocab_.longest_match(word, pos, pos > 0, end);
      if (id < 0) {
        out.resize(first);
        out.push_back(unk_);
        return;
      }
      out.push_back(id);
      pos = end;
    }
  }
  int32_t token_to_id(std::string_view token) const override { return vocab_.id(token); }
  std::string id_to_token(int32_t id) const override {
    return id >= 0 && static_cast<size_t>(id) < vocab_.size() ? vocab_.token(id) : std::string();
  }
  size_t vocab_size() const override { return vocab_.size(); }

 private:
  Vocab vocab_;
  int32_t unk_;
  size_t max_chars_;
};

}  // namespace

std::unique_ptr<Model> build_wordpiece_model(const JsonPart& part) {
  Vocab vocab(read_vocab_object(part.at("vocab")), part.str("continuing_subword_prefix", std::string("##")));
  std::string unk = part.str("unk_token", std::string("[UNK]"));
  if (vocab.id(unk) < 0) part.fail("unk_token", "\"" + unk + "\" is not in model.vocab");
  const int32_t unk_id = vocab.id(unk);
  long long max_chars = part.integer("max_input_chars_per_word", 100);
  // A count of characters, unsigned in tokenizers: a negative one would make every word [UNK].
  if (max_chars < 0)
    part.fail("max_input_chars_per_word",
              "expected 0 or more characters (BERT's is 100), found " + std::to_string(max_chars));
  return std::make_unique<WordPieceModel>(std::move(vocab), unk_id, static_cast<size_t>(max_chars));
}

}  // namespace runner::hf
