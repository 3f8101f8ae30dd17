#include "tokenizer/added_tokens.h"

#include "tokenizer/unicode_text.h"

#include <algorithm>

namespace runner::hf {

namespace {

using unicode::next_code_point;

bool is_word_character(char32_t cp) { return cp == '_' || unicode::is_letter(cp) || unicode::is_number(cp); }

char32_t last_code_point(std::string_view s) {
  size_t at = s.size() - 1;
  while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return next_code_point(s, at);
}

// Where the run of White_Space characters that ends `s` begins.
size_t trailing_space_start(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    size_t at = end - 1;
    while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
    size_t i = at;
    if (!unicode::is_white_space(next_code_point(s, i))) break;
    end = at;
  }
  return end;
}

// How many bytes of White_Space characters begin `s`.
size_t leading_space_length(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t next = i;
    if (!unicode::is_white_space(next_code_point(s, next))) break;
    i = next;
  }
  return i;
}

}  // namespace

AddedTokens::AddedTokens(std::vector<AddedToken> tokens) : all_(std::move(tokens)) {
  for (const AddedToken& t : all_) {
    if (t.content.empty()) continue;
    Set& set = t.normalized ? normalized_ : raw_;
    set.tokens.push_back(&t);
    set.first_bytes.set(static_cast<unsigned char>(t.content[0]));
  }
  for (Set* set : {&raw_, &normalized_})
    std::stable_sort(set->tokens.begin(), set->tokens.end(),
                     [](const AddedToken* a, const AddedToken* b) { return a->content.size() > b->content.size(); });
}

int32_t AddedTokens::id_of(std::string_view content) const {
  for (const AddedToken& t : all_)
    if (t.content == content) return t.id;
  return -1;
}

const AddedToken* AddedTokens::match_at(std::string_view text, size_t pos, const Set& set) const {
  if (!set.first_bytes.test(static_cast<unsigned char>(text[pos]))) return nullptr;
  for (const AddedToken* t : set.tokens)
    if (text.compare(pos, t->content.size(), t->content) == 0) return t;
  return nullptr;
}

void AddedTokens::cut(std::string_view text, const Set& set, bool from_start, std::vector<Piece>& out) const {
  size_t done = 0;  // the end of the last piece cut off
  auto text_piece = [&](size_t b, size_t e) {
    if (e > b) out.push_back(Piece{std::string(text.substr(b, e - b)), -1, from_start && b == 0});
  };
  if (!set.tokens.empty())
    for (size_t pos = 0; pos < text.size();) {
      const AddedToken* t = match_at(text, pos, set);
      if (!t) {
        ++pos;
        continue;
      }
      size_t start = pos, stop = pos + t->content.size();
      pos = stop;
      if (t->single_word) {
        bool space_before = start == 0 || !is_word_character(last_code_point(text.substr(0, start)));
        size_t after = stop;
        bool space_after = stop == text.size() || !is_word_character(next_code_point(text, after));
        if (!space_before || !space_after) continue;
      }
      if (t->lstrip) start = std::max(trailing_space_start(text.substr(0, start)), done);
      if (t->rstrip) stop += leading_space_length(text.substr(stop));
      text_piece(done, start);
      out.push_back(Piece{std::string(), t->id, false});
      done = stop;
      pos = std::max(pos, stop);
    }
  text_piece(done, text.size());
}

AddedTokens read_added_tokens(const JsonPart& list) {
  std::vector<AddedToken> tokens;
  if (list.json().is_null()) return AddedTokens(std::move(tokens));
  for (size_t i = 0, n = list.array_size("a list of added tokens"); i < n; ++i) {
    JsonPart t = list.at(i);
    AddedToken a;
    a.content = t.str("content");
    long long id = t.integer("id");
    if (id < 0 || id > INT32_MAX) t.fail("id", "expected a token id >= 0");
    a.id = static_cast<int32_t>(id);
    a.single_word = t.flag("single_word", false);
    a.lstrip = t.flag("lstrip", false);
    a.rstrip = t.flag("rstrip", false);
    a.normalized = t.flag("normalized", true);
    a.special = t.flag("special", false);
    tokens.push_back(std::move(a));
  }
  return AddedTokens(std::move(tokens));
}

}  // namespace runner::hf
