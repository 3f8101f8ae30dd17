// The official SQuAD answer normalisation, Python's string semantics kept:
// str.lower() (with Greek final sigma), ASCII punctuation, \w word runs and
// str.split() whitespace.
#include "train/metrics_squad.h"
#include "tokenizer/unicode_text.h"

#include <utf8proc.h>

#include <string>
#include <vector>

namespace runner {
namespace squad_normalize_parts {

constexpr char32_t kCapitalSigma = 0x03A3;
constexpr char32_t kFinalSigma = 0x03C2;

std::vector<char32_t> code_points(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(unicode::next_code_point(s, i));
  return out;
}

utf8proc_category_t category_of(char32_t cp) {
  return static_cast<utf8proc_category_t>(utf8proc_category(static_cast<utf8proc_int32_t>(cp)));
}

// Unicode's Cased: the letters that have a case.
bool is_cased(char32_t cp) {
  const auto c = category_of(cp);
  return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT;
}

// Unicode's Case_Ignorable: marks, format characters, modifiers and the
// word-internal punctuation (apostrophes, full stop, colon, middle dot).
bool is_case_ignorable(char32_t cp) {
  switch (cp) {
    case '\'': case '.': case ':': case 0x00B7: case 0x2018: case 0x2019: case 0x2024: case 0x2027:
      return true;
    default:
      break;
  }
  const auto c = category_of(cp);
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
         c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK;
}

// Python lowers a capital sigma to the final form when a cased letter comes
// before it and none after it (case-ignorable characters skipped both ways).
bool is_final_sigma(const std::vector<char32_t>& cps, size_t at) {
  size_t i = at;
  while (i > 0 && is_case_ignorable(cps[i - 1])) --i;
  if (i == 0 || !is_cased(cps[i - 1])) return false;
  size_t j = at + 1;
  while (j < cps.size() && is_case_ignorable(cps[j])) ++j;
  return j == cps.size() || !is_cased(cps[j]);
}

bool is_ascii_punctuation(char32_t cp) {
  return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126);
}

// Python's str.isspace(): White_Space plus the ASCII separators 0x1C-0x1F.
bool is_python_space(char32_t cp) { return unicode::is_white_space(cp) || (cp >= 0x1C && cp <= 0x1F); }

// Python's \w on str: alphanumerics and '_'.
bool is_word_char(char32_t cp) { return cp == '_' || unicode::is_letter(cp) || unicode::is_number(cp); }

// lower() then the punctuation removed, as code points.
std::vector<char32_t> lowered_without_punctuation(std::string_view text) {
  const std::vector<char32_t> cps = code_points(text);
  std::string lowered;
  lowered.reserve(text.size());
  for (size_t i = 0; i < cps.size(); ++i) {
    if (cps[i] == kCapitalSigma && is_final_sigma(cps, i))
      unicode::append_utf8(lowered, kFinalSigma);
    else
      unicode::append_lower(lowered, cps[i]);
  }
  std::vector<char32_t> out;
  for (char32_t cp : code_points(lowered))
    if (!is_ascii_punctuation(cp)) out.push_back(cp);
  return out;
}

bool is_article(const std::vector<char32_t>& cps, size_t begin, size_t end) {
  const size_t n = end - begin;
  if (n == 1) return cps[begin] == 'a';
  if (n == 2) return cps[begin] == 'a' && cps[begin + 1] == 'n';
  if (n == 3) return cps[begin] == 't' && cps[begin + 1] == 'h' && cps[begin + 2] == 'e';
  return false;
}

// re.sub(r"\b(a|an|the)\b", " ", text): a match is a whole word run.
std::vector<char32_t> without_articles(const std::vector<char32_t>& cps) {
  std::vector<char32_t> out;
  out.reserve(cps.size());
  for (size_t i = 0; i < cps.size();) {
    if (!is_word_char(cps[i])) {
      out.push_back(cps[i++]);
      continue;
    }
    size_t end = i;
    while (end < cps.size() && is_word_char(cps[end])) ++end;
    if (is_article(cps, i, end))
      out.push_back(' ');
    else
      out.insert(out.end(), cps.begin() + static_cast<std::ptrdiff_t>(i), cps.begin() + static_cast<std::ptrdiff_t>(end));
    i = end;
  }
  return out;
}

// " ".join(text.split()).
std::string collapsed_whitespace(const std::vector<char32_t>& cps) {
  std::string out;
  bool pending_space = false;
  for (char32_t cp : cps) {
    if (is_python_space(cp)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    unicode::append_utf8(out, cp);
  }
  return out;
}

}  // namespace squad_normalize_parts

std::string squad_normalize_answer(std::string_view text) {
  using namespace squad_normalize_parts;
  return collapsed_whitespace(without_articles(lowered_without_punctuation(text)));
}

}  // namespace runner
