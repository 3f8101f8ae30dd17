// Hugging Face BertTokenizer (the slow Python one, transformers 4.40) in C++:
// special-token split, text cleaning, CJK spacing, NFC, whitespace split,
// lower-casing and accent stripping, punctuation split, then greedy
// longest-match-first WordPiece.
#pragma once

#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab.h"

#include <optional>

namespace runner {

struct WordPieceSettings {
  bool lowercase = true;
  std::optional<bool> strip_accents;  // unset: strip exactly when lower-casing
  bool tokenize_chinese_chars = true;
  int max_input_chars_per_word = 100;
  std::string unk_token = "[UNK]", cls_token = "[CLS]", sep_token = "[SEP]",
              pad_token = "[PAD]", mask_token = "[MASK]";
};

class WordPieceTokenizer : public Tokenizer {
 public:
  // `fingerprint`: a digest of the files the vocabulary and settings came from.
  WordPieceTokenizer(Vocab vocab, WordPieceSettings settings, std::string fingerprint);

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override;
  const SpecialTokenIds& special_ids() const override { return special_; }
  size_t vocab_size() const override { return vocab_.size(); }
  std::string id_to_token(int32_t id) const override { return vocab_.token(id); }
  std::string fingerprint() const override { return fingerprint_; }
  const WordPieceSettings& settings() const { return settings_; }

 private:
  void tokenize_piece(std::string_view piece, std::vector<int32_t>& out) const;
  void normalize_piece(std::string_view piece, std::string& text) const;
  void tokenize_word(std::string_view word, std::vector<int32_t>& out) const;
  void split_punctuation(std::string_view word, std::vector<int32_t>& out) const;
  void wordpiece(std::string_view word, std::vector<int32_t>& out) const;
  // Length and id of the special-token string at text[pos], or 0.
  size_t special_at(std::string_view text, size_t pos, int32_t& id) const;
  bool is_special_string(std::string_view word) const;

  Vocab vocab_;
  WordPieceSettings settings_;
  std::string fingerprint_;
  SpecialTokenIds special_;
  std::vector<std::pair<std::string, int32_t>> special_strings_;
  bool strip_accents_ = true;
};

}  // namespace runner
