#include "tokenizer/normalizers.h"

#include "tokenizer/part_registry.h"
#include "tokenizer/unicode_text.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>

namespace runner::hf {

namespace {

using unicode::next_code_point;

class NormalForm : public Normalizer {
 public:
  explicit NormalForm(unicode::NormalForm form) : form_(form) {}
  void normalize(std::string& text) const override {
    if (!unicode::is_ascii(text)) text = unicode::normalize(text, form_);
  }

 private:
  unicode::NormalForm form_;
};

// tokenizers lower-cases one character at a time (char::to_lowercase, no
// final-sigma context), which is Python's one-character lower().
void lowercase(std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) unicode::append_lower(out, next_code_point(text, i));
  text = std::move(out);
}

class Lowercase : public Normalizer {
 public:
  void normalize(std::string& text) const override { lowercase(text); }
};

// Removes every combining mark (M*); decomposing first is NFD's job.
class StripAccents : public Normalizer {
 public:
  void normalize(std::string& text) const override {
    if (unicode::is_ascii(text)) return;
    std::string out;
    for (size_t i = 0; i < text.size();) {
      char32_t cp = next_code_point(text, i);
      if (!unicode::is_mark(cp)) unicode::append_utf8(out, cp);
    }
    text = std::move(out);
  }
};

class BertNormalizer : public Normalizer {
 public:
  BertNormalizer(bool clean, bool chinese, bool strip, bool lower)
      : clean_(clean), chinese_(chinese), strip_(strip), lower_(lower) {}
  void normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
      char32_t cp = next_code_point(text, i);
      if (clean_ && unicode::is_deleted_by_cleaning(cp)) continue;
      if (clean_ && unicode::is_bert_whitespace(cp)) cp = ' ';
      bool cjk = chinese_ && unicode::is_cjk_ideograph(cp);
      if (cjk) out.push_back(' ');
      unicode::append_utf8(out, cp);
      if (cjk) out.push_back(' ');
    }
    if (strip_ && !unicode::is_ascii(out)) {
      std::string stripped;
      std::string nfd = unicode::normalize(out, unicode::NormalForm::NFD);
      for (size_t i = 0; i < nfd.size();) {
        char32_t cp = next_code_point(nfd, i);
        if (!unicode::is_nonspacing_mark(cp)) unicode::append_utf8(stripped, cp);
      }
      out = std::move(stripped);
    }
    if (lower_) lowercase(out);
    text = std::move(out);
  }

 private:
  bool clean_, chinese_, strip_, lower_;
};

class Replace : public Normalizer {
 public:
  Replace(std::string pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void normalize(std::string& text) const override {
    if (pattern_.empty() || text.find(pattern_) == std::string::npos) return;
    if (content_.size() > pattern_.size()) {  // count first: the text is not built past the bound
      size_t hits = 0;
      for (size_t at = 0; (at = text.find(pattern_, at)) != std::string::npos; at += pattern_.size()) ++hits;
      require_bounded_growth(text.size(), text.size() + hits * (content_.size() - pattern_.size()), "Replace");
    }
    std::string out;
    size_t start = 0;
    for (size_t at; (at = text.find(pattern_, start)) != std::string::npos; start = at + pattern_.size())
      out.append(text, start, at - start).append(content_);
    out.append(text, start, std::string::npos);
    text = std::move(out);
  }

 private:
  std::string pattern_, content_;
};

// Replace with a Regex that is one character repeated ("C{n,}" or "C+", as
// SentencePiece conversions write " {2,}"): each run of at least n is replaced.
class RunReplace : public Normalizer {
 public:
  RunReplace(char c, size_t min_run, std::string content) : c_(c), min_run_(min_run), content_(std::move(content)) {}
  void normalize(std::string& text) const override {
    if (text.find(c_) == std::string::npos) return;
    if (content_.size() > min_run_)  // at most one replacement per min_run_ bytes
      require_bounded_growth(text.size(), text.size() / std::max<size_t>(1, min_run_) * content_.size(), "Replace");
    std::string out;
    for (size_t i = 0; i < text.size();) {
      size_t run = 0;
      while (i + run < text.size() && text[i + run] == c_) ++run;
      if (run == 0) {
        out.push_back(text[i++]);
        continue;
      }
      if (run >= min_run_) out.append(content_);
      else out.append(run, c_);
      i += run;
    }
    text = std::move(out);
  }

 private:
  char c_;
  size_t min_run_;
  std::string content_;
};

// "C{n,}" or "C+" with C one ASCII character (escaped when a regex metacharacter);
// 0 when the pattern is anything else.
size_t run_pattern(const std::string& re, char& c) {
  const std::string meta = ".^$*+?()[]{}|\\";
  size_t i = 0;
  if (re.size() >= 2 && re[0] == '\\' && meta.find(re[1]) != std::string::npos) {
    c = re[1];
    i = 2;
  } else if (!re.empty() && meta.find(re[0]) == std::string::npos && static_cast<unsigned char>(re[0]) < 0x80) {
    c = re[0];
    i = 1;
  } else {
    return 0;
  }
  std::string rest = re.substr(i);
  if (rest == "+") return 1;
  if (rest.size() < 4 || rest.front() != '{' || rest.compare(rest.size() - 2, 2, ",}") != 0) return 0;
  std::string digits = rest.substr(1, rest.size() - 3);
  if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::max<size_t>(1, std::stoul(digits));
}

class Prepend : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (text.empty()) return;
    require_bounded_growth(text.size(), text.size() + prefix_.size(), "Prepend");
    text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

// Removes leading and/or trailing White_Space characters.
class Strip : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void normalize(std::string& text) const override {
    size_t begin = 0, end = text.size();
    while (left_ && begin < end) {
      size_t i = begin;
      if (!unicode::is_white_space(next_code_point(text, i))) break;
      begin = i;
    }
    while (right_ && end > begin) {
      size_t at = end - 1;
      while (at > begin && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
      size_t i = at;
      if (!unicode::is_white_space(next_code_point(text, i))) break;
      end = at;
    }
    text = text.substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

class NormalizerSequence : public Normalizer {
 public:
  explicit NormalizerSequence(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  // Each Replace is bounded alone; the bound holds for the chain too, so that
  // rules that each grow a text 4 times cannot multiply to 4^n.
  void normalize(std::string& text) const override {
    const size_t before = text.size();
    for (const auto& p : parts_) {
      p->normalize(text);
      require_bounded_growth(before, text.size(), "Sequence");
    }
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

}  // namespace

// Chained Replace rules that each multiply a text would otherwise grow a line
// to gigabytes. 4x and a little covers a text of nothing but spaces turned into
// 3-byte markers, the largest growth of a real tokenizer's rule.
void require_bounded_growth(size_t before, size_t after, const char* normalizer) {
  if (after <= 4 * before + 64) return;
  throw InputError(make_error({}, "normalizer", fmt::format("the tokenizer.json's {} normalizer would grow a text "
                                                            "of {} bytes to {} bytes, more than 4 times",
                                                            normalizer, before, after),
                              "check the tokenizer's normalizer rules (Replace, Prepend, a charsmap): together "
                              "they should replace each pattern with text of about its length"));
}

std::unique_ptr<Normalizer> build_nfc(const JsonPart&) { return std::make_unique<NormalForm>(unicode::NormalForm::NFC); }
std::unique_ptr<Normalizer> build_nfd(const JsonPart&) { return std::make_unique<NormalForm>(unicode::NormalForm::NFD); }
std::unique_ptr<Normalizer> build_nfkc(const JsonPart&) { return std::make_unique<NormalForm>(unicode::NormalForm::NFKC); }
std::unique_ptr<Normalizer> build_nfkd(const JsonPart&) { return std::make_unique<NormalForm>(unicode::NormalForm::NFKD); }
std::unique_ptr<Normalizer> build_lowercase(const JsonPart&) { return std::make_unique<Lowercase>(); }
std::unique_ptr<Normalizer> build_strip_accents(const JsonPart&) { return std::make_unique<StripAccents>(); }

std::unique_ptr<Normalizer> build_bert_normalizer(const JsonPart& part) {
  bool lower = part.flag("lowercase", true);
  bool strip = part.has("strip_accents") ? part.flag("strip_accents") : lower;
  return std::make_unique<BertNormalizer>(part.flag("clean_text", true), part.flag("handle_chinese_chars", true),
                                          strip, lower);
}

// Replace's pattern is {"String": s} or {"Regex": r}; of regular expressions
// only runs of one character are read, the others refused.
std::unique_ptr<Normalizer> build_replace(const JsonPart& part) {
  JsonPart pattern = part.at("pattern");
  if (pattern.has("Regex")) {
    char c = 0;
    if (size_t min_run = run_pattern(pattern.str("Regex"), c))
      return std::make_unique<RunReplace>(c, min_run, part.str("content"));
    pattern.unsupported("a Replace normalizer with the Regex pattern " + pattern.at("Regex").json().dump(),
                        {"Replace with a String pattern", "a Regex of one repeated character such as \" {2,}\""});
  }
  return std::make_unique<Replace>(pattern.str("String"), part.str("content"));
}

std::unique_ptr<Normalizer> build_prepend(const JsonPart& part) { return std::make_unique<Prepend>(part.str("prepend")); }

std::unique_ptr<Normalizer> build_strip(const JsonPart& part) {
  return std::make_unique<Strip>(part.flag("strip_left", true), part.flag("strip_right", true));
}

std::unique_ptr<Normalizer> build_normalizer_sequence(const JsonPart& part) {
  JsonPart list = part.at("normalizers");
  std::vector<std::unique_ptr<Normalizer>> parts;
  for (size_t i = 0, n = list.array_size("a list of normalizers"); i < n; ++i)
    parts.push_back(build_normalizer(list.at(i)));
  return std::make_unique<NormalizerSequence>(std::move(parts));
}

}  // namespace runner::hf
