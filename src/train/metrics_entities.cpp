// Entity-level precision, recall and F1, seqeval's lenient chunker and token
// accuracy (metrics_entities.h). Strict chunking is in
// metrics_entities_scheme.cpp.
#include "train/metrics_entities.h"

#include "util/diagnostic.h"

#include <map>
#include <set>
#include <string_view>
#include <utility>

namespace runner {
namespace entities_detail {

void require_tag(const std::string& tag) {
  if (tag.empty()) throw InputError("entity metrics: an empty tag has no prefix to read (a tag is 'O' or like 'B-PER')");
}

}  // namespace entities_detail

namespace {

using entities_detail::require_tag;

// seqeval reads the prefix as Python's tag[0] (or tag[-1]): one code point,
// which in UTF-8 is 1 to 4 bytes. The type is cut after it, so a non-ASCII
// prefix must not leave its continuation bytes in the type.
size_t first_code_point_size(std::string_view s) {
  unsigned char lead = static_cast<unsigned char>(s[0]);
  size_t n = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  return n < s.size() ? n : s.size();
}

size_t last_code_point_start(std::string_view s) {
  size_t i = s.size() - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

// A prefix of more than one byte matches none of the letters the rules test.
char prefix_char(std::string_view code_point) { return code_point.size() == 1 ? code_point[0] : '\0'; }

struct LenientTag {
  char prefix = 'O';
  std::string_view type;
};

// seqeval's get_entities: the type is what follows the first '-' after the
// prefix ("B-PER-X" is type "PER-X", "BPER" type "PER"); with suffix, what
// precedes the last '-' before it. An empty type reads as "_", so "O", "B"
// and "I" alone all have type "_".
LenientTag lenient_tag(const std::string& tag, bool suffix) {
  require_tag(tag);
  std::string_view s = tag;
  LenientTag out;
  std::string_view type;
  if (suffix) {
    size_t at = last_code_point_start(s);
    out.prefix = prefix_char(s.substr(at));
    std::string_view rest = s.substr(0, at);
    size_t dash = rest.rfind('-');
    type = dash == std::string_view::npos ? rest : rest.substr(0, dash);
  } else {
    size_t n = first_code_point_size(s);
    out.prefix = prefix_char(s.substr(0, n));
    std::string_view rest = s.substr(n);
    size_t dash = rest.find('-');
    type = dash == std::string_view::npos ? rest : rest.substr(dash + 1);
  }
  out.type = type.empty() ? std::string_view("_") : type;
  return out;
}

// Whether an entity ended on the previous token. Only B-, I-, E-, S- and O
// have rules; any other prefix (L-, U-, a bare word) ends an entity only by a
// change of type, and O and "." never end one that way: that is conlleval's
// rule set as seqeval keeps it.
bool chunk_ends(const LenientTag& prev, const LenientTag& cur) {
  char p = prev.prefix, c = cur.prefix;
  if (p == 'E' || p == 'S') return true;
  if ((p == 'B' || p == 'I') && (c == 'B' || c == 'S' || c == 'O')) return true;
  return p != 'O' && p != '.' && prev.type != cur.type;
}

// Whether an entity starts on this token: B- and S- always, I- and E- after
// an entity's end or O (so an I- without a B- starts one), and any prefix but
// O and "." when the type changes.
bool chunk_starts(const LenientTag& prev, const LenientTag& cur) {
  char p = prev.prefix, c = cur.prefix;
  if (c == 'B' || c == 'S') return true;
  if ((p == 'E' || p == 'S' || p == 'O') && (c == 'E' || c == 'I')) return true;
  return c != 'O' && c != '.' && prev.type != cur.type;
}

// The sentences as seqeval's lenient chunker reads them: one sequence, an "O"
// after every sentence and one more at the end, which closes the last entity.
std::vector<LenientTag> lenient_sequence(const TagSentences& sentences, bool suffix) {
  static const std::string kOutside = "O";
  std::vector<LenientTag> seq;
  for (const auto& sentence : sentences) {
    for (const auto& tag : sentence) seq.push_back(lenient_tag(tag, suffix));
    seq.push_back(lenient_tag(kOutside, suffix));
  }
  seq.push_back(lenient_tag(kOutside, suffix));
  return seq;
}

std::vector<Entity> lenient_entities(const TagSentences& sentences, bool suffix) {
  std::vector<LenientTag> seq = lenient_sequence(sentences, suffix);
  std::vector<Entity> out;
  // Before the first token: an O of type "" (seqeval's start), which no
  // tag's type equals.
  LenientTag prev{'O', std::string_view()};
  size_t begin = 0;
  for (size_t i = 0; i < seq.size(); ++i) {
    // An entity can end and another start on the same token; the start of an
    // entity that never ends is overwritten by the next start, so it is lost.
    if (chunk_ends(prev, seq[i])) out.push_back({std::string(prev.type), begin, i - 1});
    if (chunk_starts(prev, seq[i])) begin = i;
    prev = seq[i];
  }
  return out;
}

void require_same_shape(const TagSentences& truth, const TagSentences& predicted) {
  bool same = truth.size() == predicted.size();
  for (size_t i = 0; same && i < truth.size(); ++i) same = truth[i].size() == predicted[i].size();
  if (!same)
    throw InputError("entity metrics: the true and the predicted tags differ in sentence count or length");
}

double ratio(long long num, long long den) {
  return den == 0 ? 0.0 : static_cast<double>(num) / static_cast<double>(den);
}

// The operations seqeval (numpy) runs, in its order: precision and recall
// first, then 2PR / (P + R) with a zero denominator read as 1.
EntityScores scores_of(long long correct, long long predicted, long long support) {
  EntityScores s;
  s.correct = correct;
  s.predicted = predicted;
  s.support = support;
  s.precision = ratio(correct, predicted);
  s.recall = ratio(correct, support);
  double denom = s.precision + s.recall;
  s.f1 = 2.0 * s.precision * s.recall / (denom == 0.0 ? 1.0 : denom);
  return s;
}

using Spans = std::set<std::pair<size_t, size_t>>;

struct TypeSpans {
  Spans truth, predicted;
};

long long common(const Spans& a, const Spans& b) {
  long long n = 0;
  for (const auto& span : a) n += static_cast<long long>(b.count(span));
  return n;
}

}  // namespace

std::vector<Entity> extract_entities(const TagSentences& sentences, const EntityOptions& options) {
  if (options.mode == EntityMode::Strict)
    return entities_detail::strict_entities(sentences, options.scheme, options.suffix);
  return lenient_entities(sentences, options.suffix);
}

EntityReport entity_report(const TagSentences& truth, const TagSentences& predicted, const EntityOptions& options) {
  require_same_shape(truth, predicted);
  // Sets, as seqeval's: an entity is its type and span, counted once.
  std::map<std::string, TypeSpans> by_type;  // std::string's order is byte order, as Python sorts UTF-8 text
  for (Entity& e : extract_entities(truth, options)) by_type[e.type].truth.insert({e.first, e.last});
  for (Entity& e : extract_entities(predicted, options)) by_type[e.type].predicted.insert({e.first, e.last});
  EntityReport report;
  long long correct = 0, guessed = 0, support = 0;
  for (const auto& [type, spans] : by_type) {
    long long c = common(spans.truth, spans.predicted);
    auto p = static_cast<long long>(spans.predicted.size()), t = static_cast<long long>(spans.truth.size());
    report.per_type.push_back({type, scores_of(c, p, t)});
    correct += c;
    guessed += p;
    support += t;
  }
  report.micro = scores_of(correct, guessed, support);
  report.accuracy = token_accuracy(truth, predicted);
  return report;
}

double token_accuracy(const TagSentences& truth, const TagSentences& predicted) {
  require_same_shape(truth, predicted);
  long long same = 0, all = 0;
  for (size_t i = 0; i < truth.size(); ++i)
    for (size_t j = 0; j < truth[i].size(); ++j) {
      same += truth[i][j] == predicted[i][j];
      ++all;
    }
  return ratio(same, all);
}

}  // namespace runner
