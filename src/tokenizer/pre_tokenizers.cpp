#include "tokenizer/pre_tokenizers.h"

#include "tokenizer/byte_level.h"
#include "tokenizer/part_registry.h"
#include "tokenizer/unicode_text.h"

#include <functional>

namespace runner::hf {

namespace {

using unicode::next_code_point;

// What becomes of the matched delimiters (tokenizers' SplitDelimiterBehavior).
enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior behavior_of(const JsonPart& part, const char* fallback) {
  std::string name = part.str("behavior", std::string(fallback));
  if (name == "Removed") return Behavior::Removed;
  if (name == "Isolated") return Behavior::Isolated;
  if (name == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (name == "MergedWithNext") return Behavior::MergedWithNext;
  if (name == "Contiguous") return Behavior::Contiguous;
  part.at("behavior").unsupported("behavior \"" + name + "\"",
                                  {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"});
}

struct Span {
  size_t begin, end;
  bool match;
};

// Cuts `text` at the spans (which cover it in order) as `behavior` says; a
// delimiter merges into its neighbour only when that neighbour is no delimiter.
// Empty pieces are not produced.
void cut(const std::string& text, const std::vector<Span>& spans, Behavior behavior, std::vector<Piece>& out) {
  std::vector<std::pair<size_t, size_t>> parts;
  bool glue_next = false;
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    const bool prev_match = i > 0 && spans[i - 1].match;
    if (s.match && behavior == Behavior::Removed) continue;
    bool merge_prev = glue_next || (s.match && !parts.empty() &&
                                    ((behavior == Behavior::MergedWithPrevious && !prev_match) ||
                                     (behavior == Behavior::Contiguous && prev_match)));
    glue_next = s.match && behavior == Behavior::MergedWithNext && i + 1 < spans.size() && !spans[i + 1].match;
    if (merge_prev) parts.back().second = s.end;
    else parts.emplace_back(s.begin, s.end);
  }
  for (auto [b, e] : parts)
    if (e > b) out.push_back(Piece{text.substr(b, e - b)});
}

// Spans from a per-character predicate: each matching character is one match.
std::vector<Span> char_spans(const std::string& text, const std::function<bool(char32_t)>& is_delimiter) {
  std::vector<Span> spans;
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    size_t at = i;
    if (!is_delimiter(next_code_point(text, i))) continue;
    if (at > start) spans.push_back({start, at, false});
    spans.push_back({at, i, true});
    start = i;
  }
  if (text.size() > start) spans.push_back({start, text.size(), false});
  return spans;
}

bool is_punctuation(char32_t cp) { return unicode::is_bert_punctuation(cp); }

class CharSplit : public PreTokenizer {
 public:
  CharSplit(std::function<bool(char32_t)> is_delimiter, Behavior behavior)
      : is_delimiter_(std::move(is_delimiter)), behavior_(behavior) {}
  void split(std::vector<Piece>& pieces) const override {
    split_each(pieces, [&](Piece& piece, std::vector<Piece>& out) {
      cut(piece.text, char_spans(piece.text, is_delimiter_), behavior_, out);
    });
  }

 private:
  std::function<bool(char32_t)> is_delimiter_;
  Behavior behavior_;
};

// Oniguruma's \w: letters, marks, numbers, connector punctuation and the
// joiners U+200C/U+200D (Join_Control), which cut a ZWJ emoji sequence apart.
bool is_word_char(char32_t cp) {
  if (cp == '_' || cp == 0x200C || cp == 0x200D) return true;
  return unicode::is_letter(cp) || unicode::is_number(cp) || unicode::is_mark(cp) ||
         (cp >= 0x80 && !unicode::is_white_space(cp) && unicode::is_bert_punctuation(cp) &&
          (cp == 0x203F || cp == 0x2040 || cp == 0x2054 || cp == 0xFE33 || cp == 0xFE34 ||
           (cp >= 0xFE4D && cp <= 0xFE4F) || cp == 0xFF3F));
}

// \w+|[^\w\s]+ : runs of word characters and runs of other non-space characters.
class Whitespace : public PreTokenizer {
 public:
  void split(std::vector<Piece>& pieces) const override {
    split_each(pieces, [&](Piece& piece, std::vector<Piece>& out) {
      const std::string& text = piece.text;
      int run = -1;  // 0: word run, 1: other run
      size_t start = 0;
      for (size_t i = 0; i < text.size();) {
        size_t at = i;
        char32_t cp = next_code_point(text, i);
        int cls = unicode::is_white_space(cp) ? -1 : is_word_char(cp) ? 0 : 1;
        if (cls == run) continue;
        if (run >= 0) out.push_back(Piece{text.substr(start, at - start)});
        run = cls;
        start = at;
      }
      if (run >= 0) out.push_back(Piece{text.substr(start)});
    });
  }
};

// Spaces become the replacement (▁), which is prepended as prepend_scheme
// says ("first": only to the piece at the start of the text), and with
// split the text is cut before each replacement.
class Metaspace : public PreTokenizer {
 public:
  enum class Prepend { Always, First, Never };
  Metaspace(std::string replacement, Prepend prepend, bool split)
      : replacement_(std::move(replacement)), prepend_(prepend), split_(split) {}

  void split(std::vector<Piece>& pieces) const override {
    split_each(pieces, [&](Piece& piece, std::vector<Piece>& out) {
      std::string s;
      s.reserve(piece.text.size() + 8);
      for (char c : piece.text) {
        if (c == ' ') s.append(replacement_);
        else s.push_back(c);
      }
      bool starts = s.compare(0, replacement_.size(), replacement_) == 0;
      if (!starts && (prepend_ == Prepend::Always || (prepend_ == Prepend::First && piece.at_start)))
        s.insert(0, replacement_);
      if (!split_) {
        out.push_back(Piece{std::move(s)});
        return;
      }
      std::vector<Span> spans;
      size_t start = 0;
      for (size_t at; (at = s.find(replacement_, start)) != std::string::npos; start = at + replacement_.size()) {
        if (at > start) spans.push_back({start, at, false});
        spans.push_back({at, at + replacement_.size(), true});
      }
      if (s.size() > start) spans.push_back({start, s.size(), false});
      cut(s, spans, Behavior::MergedWithNext, out);
    });
  }

 private:
  std::string replacement_;
  Prepend prepend_;
  bool split_;
};

// Split with a String pattern: the literal's occurrences are the delimiters
// (with invert, the text between them is).
class LiteralSplit : public PreTokenizer {
 public:
  LiteralSplit(std::string pattern, Behavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  void split(std::vector<Piece>& pieces) const override {
    split_each(pieces, [&](Piece& piece, std::vector<Piece>& out) {
      const std::string& s = piece.text;
      std::vector<Span> spans;
      size_t start = 0;
      if (!pattern_.empty())
        for (size_t at; (at = s.find(pattern_, start)) != std::string::npos; start = at + pattern_.size()) {
          if (at > start) spans.push_back({start, at, invert_});
          spans.push_back({at, at + pattern_.size(), !invert_});
        }
      if (s.size() > start) spans.push_back({start, s.size(), invert_});
      cut(s, spans, behavior_, out);
    });
  }

 private:
  std::string pattern_;
  Behavior behavior_;
  bool invert_;
};

class PreTokenizerSequence : public PreTokenizer {
 public:
  explicit PreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}
  void split(std::vector<Piece>& pieces) const override {
    for (const auto& p : parts_) p->split(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

// BertPreTokenizer: whitespace removed, then each punctuation character isolated.
class BertPre : public PreTokenizer {
 public:
  void split(std::vector<Piece>& pieces) const override {
    spaces_.split(pieces);
    punct_.split(pieces);
  }

 private:
  CharSplit spaces_{unicode::is_white_space, Behavior::Removed};
  CharSplit punct_{is_punctuation, Behavior::Isolated};
};

}  // namespace

std::unique_ptr<PreTokenizer> build_metaspace(const JsonPart& part) {
  using P = Metaspace::Prepend;
  P prepend = part.flag("add_prefix_space", true) ? P::Always : P::Never;
  if (part.has("prepend_scheme")) {
    std::string scheme = part.str("prepend_scheme");
    if (scheme == "always") prepend = P::Always;
    else if (scheme == "first") prepend = P::First;
    else if (scheme == "never") prepend = P::Never;
    else part.at("prepend_scheme").unsupported("prepend_scheme \"" + scheme + "\"", {"always", "first", "never"});
  }
  // Hugging Face's replacement is one character; an empty one would match
  // everywhere and split without end.
  const std::string replacement = part.str("replacement", std::string("\xE2\x96\x81"));
  size_t at = 0;
  if (replacement.empty() || (next_code_point(replacement, at), at != replacement.size()))
    part.fail("replacement", "expected one character (Hugging Face's is \"\xE2\x96\x81\"), found \"" + replacement + "\"");
  return std::make_unique<Metaspace>(replacement, prepend, part.flag("split", true));
}

std::unique_ptr<PreTokenizer> build_whitespace(const JsonPart&) { return std::make_unique<Whitespace>(); }

std::unique_ptr<PreTokenizer> build_whitespace_split(const JsonPart&) {
  return std::make_unique<CharSplit>(unicode::is_white_space, Behavior::Removed);
}

std::unique_ptr<PreTokenizer> build_bert_pre_tokenizer(const JsonPart&) { return std::make_unique<BertPre>(); }

std::unique_ptr<PreTokenizer> build_punctuation(const JsonPart& part) {
  return std::make_unique<CharSplit>(is_punctuation, behavior_of(part, "Isolated"));
}

// Of Regex patterns only GPT-2's (isolated, not inverted) is read: its matcher
// is ByteLevel's.
std::unique_ptr<PreTokenizer> build_split(const JsonPart& part) {
  JsonPart pattern = part.at("pattern");
  if (pattern.has("Regex")) {
    if (pattern.str("Regex") == kGpt2Pattern && part.str("behavior", std::string()) == "Isolated" &&
        !part.flag("invert", false))
      return gpt2_pattern_split();
    pattern.unsupported("a Split pre-tokenizer with the Regex pattern " + pattern.at("Regex").json().dump(),
                        {"Split with a String pattern", "GPT-2's pattern, Isolated"});
  }
  return std::make_unique<LiteralSplit>(pattern.str("String"), behavior_of(part, "Isolated"),
                                        part.flag("invert", false));
}

std::unique_ptr<PreTokenizer> build_pre_tokenizer_sequence(const JsonPart& part) {
  JsonPart list = part.at("pretokenizers");
  std::vector<std::unique_ptr<PreTokenizer>> parts;
  for (size_t i = 0, n = list.array_size("a list of pre-tokenizers"); i < n; ++i)
    parts.push_back(build_pre_tokenizer(list.at(i)));
  return std::make_unique<PreTokenizerSequence>(std::move(parts));
}

}  // namespace runner::hf
