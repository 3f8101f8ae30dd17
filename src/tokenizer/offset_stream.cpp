#include "tokenizer/offset_stream.h"

#include "tokenizer/unicode_text.h"

namespace runner::offsets {

std::vector<std::string> utf8_characters(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    const size_t start = i;
    unicode::next_code_point(text, i);
    out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

namespace {

bool is_white(std::string_view s) {
  size_t i = 0;
  if (s.empty()) return false;
  const char32_t cp = unicode::next_code_point(s, i);
  return i == s.size() && unicode::is_white_space(cp);
}

// A run of n characters that became m: the i-th new character stands for the
// i-th old one, the last old one when the run grew; when it shrank, the new
// characters stand for the whole run (Replace), except a "▁" that folds a
// run of spaces (Precompiled), which stands for its last character.
void push_units(std::vector<Unit>& units, std::string_view normalized, int32_t first_char, int32_t old_count) {
  const auto chars = utf8_characters(normalized);
  const auto new_count = static_cast<int32_t>(chars.size());
  for (int32_t q = 0; q < new_count; ++q) {
    CharSpan span{first_char + std::min(q, old_count - 1), first_char + std::min(q, old_count - 1) + 1};
    if (new_count < old_count)
      span = chars[static_cast<size_t>(q)] == "\xE2\x96\x81" ? CharSpan{first_char + old_count - 1, first_char + old_count}
                                                             : CharSpan{first_char, first_char + old_count};
    Unit u;
    u.bytes = chars[static_cast<size_t>(q)];
    u.span = span;
    u.marker = u.bytes == "\xE2\x96\x81";
    u.whitespace = is_white(u.bytes);
    units.push_back(std::move(u));
  }
}

}  // namespace

std::vector<Unit> bert_units(std::string_view text, const WordPieceSettings& settings) {
  const bool strip = settings.strip_accents.value_or(settings.lowercase);
  std::vector<Unit> units;
  int32_t index = 0;
  for (size_t i = 0; i < text.size(); ++index) {
    const char32_t cp = unicode::next_code_point(text, i);
    std::string s;
    if (unicode::is_deleted_by_cleaning(cp)) {
      units.push_back({"", {index, index + 1}, false, false});
      continue;
    }
    if (unicode::is_bert_whitespace(cp)) {
      units.push_back({" ", {index, index + 1}, false, true});
      continue;
    }
    if (settings.lowercase) unicode::append_lower(s, cp);
    else unicode::append_utf8(s, cp);
    if (strip) {
      std::string stripped;
      unicode::append_nfd_without_marks(stripped, s);
      s = std::move(stripped);
    }
    const auto chars = utf8_characters(s);
    if (chars.empty()) units.push_back({"", {index, index + 1}, false, false});
    for (const auto& c : chars) units.push_back({c, {index, index + 1}, false, false});
  }
  return units;
}

std::vector<Unit> normalized_units(std::string_view text, const hf::Normalizer* normalizer) {
  const auto chars = utf8_characters(text);
  std::vector<Unit> units;
  // A run normalized with a letter after it, so that a normalizer that
  // strips the text's end (Strip, Precompiled) treats it as the middle of a text.
  auto run = [&](size_t i, size_t k) {
    std::string s;
    for (size_t c = i; c < i + k; ++c) s += chars[c];
    if (!normalizer) return s;
    std::string with_letter = s + "a";
    normalizer->normalize(with_letter);
    if (!with_letter.empty() && with_letter.back() == 'a') return with_letter.substr(0, with_letter.size() - 1);
    normalizer->normalize(s);
    return s;
  };
  std::string whole(text);
  if (normalizer) normalizer->normalize(whole);
  size_t j = 0;
  for (size_t i = 0; i < chars.size();) {
    size_t taken = 0;
    for (size_t k = 1; k <= 3 && i + k <= chars.size() && taken == 0; ++k) {
      const std::string s = run(i, k);
      if (s.empty() || whole.compare(j, s.size(), s) != 0) continue;
      // Whitespace after the run that it swallows belongs to it ("   " to one "▁").
      while (i + k < chars.size() && is_white(chars[i + k]) && run(i, k + 1) == s) ++k;
      push_units(units, s, static_cast<int32_t>(i), static_cast<int32_t>(k));
      j += s.size();
      taken = k;
    }
    if (taken == 0) {  // vanished in the whole text's normalization
      units.push_back({"", {static_cast<int32_t>(i), static_cast<int32_t>(i) + 1}, false, false});
      taken = 1;
    }
    i += taken;
  }
  return units;
}

}  // namespace runner::offsets
