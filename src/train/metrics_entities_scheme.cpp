// The tagging schemes: seqeval's strict chunker (seqeval.scheme, mode="strict"),
// the scheme of a label list, and scheme names (metrics_entities.h).
#include "train/metrics_entities.h"

#include "util/diagnostic.h"

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace runner {
namespace {

// One bit per prefix letter, so a pattern can name several at once.
enum Prefix : uint8_t { kI = 1, kO = 2, kB = 4, kE = 8, kS = 16, kU = 32, kL = 64, kAny = 127 };

enum class TypeCond { Any, Same, Diff };

// (previous token's prefix, this token's prefix, how their types compare).
struct Pattern {
  uint8_t prev, cur;
  TypeCond type;
};

struct SchemeRules {
  uint8_t allowed;
  std::initializer_list<Pattern> start, inside, end;
};

// seqeval's definitions of the schemes, written as its pattern sets. "end" is
// tested on the token after an entity's last one: the entity counts only if
// that pair closes it. IOB1's "B" only separates two adjacent entities of one
// type, so a B- after O starts nothing there (the I- after it does).
const SchemeRules& rules_of(TagScheme scheme) {
  using T = TypeCond;
  static const SchemeRules iob1{kI | kO | kB,
      {{kO, kI, T::Any}, {kI, kI, T::Diff}, {kB, kI, T::Any}, {kI, kB, T::Same}, {kB, kB, T::Same}},
      {{kB, kI, T::Same}, {kI, kI, T::Same}},
      {{kI, kI, T::Diff}, {kI, kO, T::Any}, {kI, kB, T::Any}, {kB, kO, T::Any}, {kB, kI, T::Diff},
       {kB, kB, T::Same}}};
  static const SchemeRules ioe1{kI | kO | kE,
      {{kO, kI, T::Any}, {kI, kI, T::Diff}, {kE, kI, T::Any}, {kE, kE, T::Same}},
      {{kI, kI, T::Same}, {kI, kE, T::Same}},
      {{kI, kI, T::Diff}, {kI, kO, T::Any}, {kI, kE, T::Diff}, {kE, kI, T::Same}, {kE, kE, T::Same}}};
  static const SchemeRules iob2{kI | kO | kB,
      {{kAny, kB, T::Any}},
      {{kB, kI, T::Same}, {kI, kI, T::Same}},
      {{kI, kO, T::Any}, {kI, kI, T::Diff}, {kI, kB, T::Any}, {kB, kO, T::Any}, {kB, kI, T::Diff},
       {kB, kB, T::Any}}};
  static const SchemeRules ioe2{kI | kO | kE,
      {{kO, kI, T::Any}, {kO, kE, T::Any}, {kE, kI, T::Any}, {kE, kE, T::Any}, {kI, kI, T::Diff},
       {kI, kE, T::Diff}},
      {{kI, kE, T::Same}, {kI, kI, T::Same}},
      {{kE, kAny, T::Any}}};
  static const SchemeRules iobes{kI | kO | kB | kE | kS,
      {{kAny, kB, T::Any}, {kAny, kS, T::Any}},
      {{kB, kI, T::Same}, {kB, kE, T::Same}, {kI, kI, T::Same}, {kI, kE, T::Same}},
      {{kS, kAny, T::Any}, {kE, kAny, T::Any}}};
  static const SchemeRules bilou{kB | kI | kL | kO | kU,
      {{kAny, kB, T::Any}, {kAny, kU, T::Any}},
      {{kB, kI, T::Same}, {kB, kL, T::Same}, {kI, kI, T::Same}, {kI, kL, T::Same}},
      {{kU, kAny, T::Any}, {kL, kAny, T::Any}}};
  switch (scheme) {
    case TagScheme::IOB1: return iob1;
    case TagScheme::IOE1: return ioe1;
    case TagScheme::IOB2: return iob2;
    case TagScheme::IOE2: return ioe2;
    case TagScheme::IOBES: return iobes;
    case TagScheme::BILOU: return bilou;
  }
  return iob2;
}

uint8_t prefix_bit(char c) {
  switch (c) {
    case 'I': return kI;
    case 'O': return kO;
    case 'B': return kB;
    case 'E': return kE;
    case 'S': return kS;
    case 'U': return kU;
    case 'L': return kL;
    default: return 0;
  }
}

// The prefix letter: a tag's first byte (its last with suffix). A multi-byte
// code point there is no scheme letter either way, so bytes suffice here.
char prefix_letter(const std::string& tag, bool suffix) {
  entities_detail::require_tag(tag);
  return suffix ? tag.back() : tag.front();
}

struct StrictTag {
  uint8_t prefix = kO;
  std::string_view type = "_";
};

// seqeval.scheme.Token: the type is the rest with every '-' at either end
// stripped ("B--PER-" is "PER"); empty reads as "_".
std::string_view strict_type(const std::string& tag, bool suffix) {
  std::string_view rest = std::string_view(tag).substr(suffix ? 0 : 1, tag.size() - 1);
  size_t first = rest.find_first_not_of('-');
  if (first == std::string_view::npos) return "_";
  return rest.substr(first, rest.find_last_not_of('-') - first + 1);
}

std::string allowed_list(uint8_t allowed) {
  std::string out;
  for (char c : {'B', 'I', 'O', 'E', 'S', 'L', 'U'})
    if (allowed & prefix_bit(c)) out += out.empty() ? std::string(1, c) : std::string(", ") + c;
  return out;
}

StrictTag strict_tag(const std::string& tag, TagScheme scheme, bool suffix) {
  uint8_t bit = prefix_bit(prefix_letter(tag, suffix));
  uint8_t allowed = rules_of(scheme).allowed;
  // seqeval raises here too (ValueError, or KeyError for a letter no scheme has).
  if ((bit & allowed) == 0)
    throw InputError(std::string("entity metrics: strict ") + scheme_name(scheme) + " reads the prefixes " +
                     allowed_list(allowed) + " only; found the tag '" + tag + "'");
  return {bit, strict_type(tag, suffix)};
}

bool matches(std::initializer_list<Pattern> patterns, const StrictTag& prev, const StrictTag& cur) {
  for (const Pattern& p : patterns) {
    if (!(prev.prefix & p.prev) || !(cur.prefix & p.cur)) continue;
    if (p.type == TypeCond::Any || (p.type == TypeCond::Same) == (prev.type == cur.type)) return true;
  }
  return false;
}

// Past the last token that continues the entity begun before `from`. The
// appended O continues none, so the loop always returns inside the sentence.
size_t entity_stop(const std::vector<StrictTag>& tags, size_t from, const SchemeRules& rules) {
  for (size_t i = from; i < tags.size(); ++i)
    if (!matches(rules.inside, tags[i - 1], tags[i])) return i;
  return tags.size() - 1;
}

// One sentence, as seqeval.scheme.Tokens.entities walks it: an entity that
// starts but is not closed as the scheme says is dropped, and the walk goes
// on from where it stopped, not from the token after its start.
void sentence_entities(const std::vector<StrictTag>& tags, size_t offset, const SchemeRules& rules,
                       std::vector<Entity>& out) {
  const StrictTag outside;
  size_t i = 0;
  while (i < tags.size()) {
    const StrictTag& prev = i == 0 ? outside : tags[i - 1];
    if (!matches(rules.start, prev, tags[i])) {
      ++i;
      continue;
    }
    size_t stop = entity_stop(tags, i + 1, rules);
    if (matches(rules.end, tags[stop - 1], tags[stop]))
      out.push_back({std::string(tags[i].type), offset + i, offset + stop - 1});
    i = stop;
  }
}

}  // namespace

namespace entities_detail {

std::vector<Entity> strict_entities(const TagSentences& sentences, TagScheme scheme, bool suffix) {
  const SchemeRules& rules = rules_of(scheme);
  std::vector<Entity> out;
  size_t offset = 0;
  for (const auto& sentence : sentences) {
    std::vector<StrictTag> tags;
    for (const auto& tag : sentence) tags.push_back(strict_tag(tag, scheme, suffix));
    tags.push_back(StrictTag{});  // seqeval's closing O
    sentence_entities(tags, offset, rules, out);
    offset += sentence.size() + 1;  // the lenient offsets: a separator after each sentence
  }
  return out;
}

}  // namespace entities_detail

namespace {

// The first few labels that carry the given prefixes, for a message.
std::string labels_with(const std::vector<std::string>& labels, bool suffix, uint8_t prefixes) {
  std::string out;
  int shown = 0;
  for (const auto& label : labels) {
    if (!(prefix_bit(prefix_letter(label, suffix)) & prefixes)) continue;
    if (shown == 3) return out + ", ...";
    out += (shown++ ? ", '" : "'") + label + "'";
  }
  return out;
}

}  // namespace

TagScheme detect_scheme(const std::vector<std::string>& labels, bool suffix) {
  uint8_t seen = 0;
  for (const auto& label : labels) {
    uint8_t bit = prefix_bit(prefix_letter(label, suffix));
    if (bit == 0)
      throw InputError("entity labels: '" + label + "' has no scheme prefix (B, I, O, E, S, L or U" +
                       (suffix ? " at its end)" : ")"));
    seen |= bit;
  }
  bool bilou = seen & (kL | kU), iobes_or_ioe = seen & (kE | kS);
  if (bilou && iobes_or_ioe)
    throw InputError("entity labels mix two schemes: BILOU's " + labels_with(labels, suffix, kL | kU) +
                     " with IOBES/IOE's " + labels_with(labels, suffix, kE | kS));
  if (bilou) return TagScheme::BILOU;
  if ((seen & kS) || ((seen & kE) && (seen & kB))) return TagScheme::IOBES;
  if (seen & kE) return TagScheme::IOE2;
  return TagScheme::IOB2;
}

const char* scheme_name(TagScheme scheme) {
  switch (scheme) {
    case TagScheme::IOB1: return "IOB1";
    case TagScheme::IOB2: return "IOB2";
    case TagScheme::IOE1: return "IOE1";
    case TagScheme::IOE2: return "IOE2";
    case TagScheme::IOBES: return "IOBES";
    case TagScheme::BILOU: return "BILOU";
  }
  return "?";
}

TagScheme parse_scheme(const std::string& name) {
  for (TagScheme s : {TagScheme::IOB1, TagScheme::IOB2, TagScheme::IOE1, TagScheme::IOE2, TagScheme::IOBES,
                      TagScheme::BILOU})
    if (name == scheme_name(s)) return s;
  if (name == "BIO") return TagScheme::IOB2;
  if (name == "BIOES") return TagScheme::IOBES;
  throw InputError("entity metrics: unknown tagging scheme '" + name +
                   "' (expected IOB1, IOB2 or BIO, IOE1, IOE2, IOBES or BIOES, BILOU)");
}

}  // namespace runner
