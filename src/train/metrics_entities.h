// Entity-level metrics of token classification (NER), defined as the Python
// library seqeval 1.2.2 defines them, so that a run's numbers can be compared
// with papers and Hugging Face scripts that report seqeval's:
//
//   * Lenient mode is seqeval's default (`f1_score(y_true, y_pred)` with no
//     `mode`), the conlleval-like chunker. It reads any tag: the first
//     character is the prefix, the rest after the first '-' is the type, and
//     it never refuses an ill-formed sequence (an I- without a B- starts an
//     entity). The sentences are chunked as one sequence with an "O" between
//     them, so an entity whose prefix never ends it (L-, U-) can run on into
//     the next sentence, as in seqeval.
//   * Strict mode is `mode="strict", scheme=...` (seqeval.scheme): an entity
//     counts only when it starts and ends as the scheme says, inside one
//     sentence, and a tag whose prefix the scheme does not have is refused.
//
// Micro precision, recall and F1 count entities over every type; the per-type
// numbers are those of seqeval's classification_report. A ratio with nothing
// to divide by is 0, as seqeval's default zero_division="warn" gives (it warns).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace runner {

using TagSentences = std::vector<std::vector<std::string>>;

enum class TagScheme { IOB1, IOB2, IOE1, IOE2, IOBES, BILOU };

enum class EntityMode { Lenient, Strict };

struct EntityOptions {
  EntityMode mode = EntityMode::Lenient;
  TagScheme scheme = TagScheme::IOB2;  // read in strict mode only
  bool suffix = false;                 // "PER-B" instead of "B-PER" (seqeval's suffix=True)
};

// One entity. first/last (inclusive) index the sentences laid end to end with
// one separator position after each sentence (seqeval's lenient offsets);
// strict entities use the same offsets, so both modes compare entities alike.
struct Entity {
  std::string type;
  size_t first = 0;
  size_t last = 0;
  bool operator==(const Entity& o) const { return type == o.type && first == o.first && last == o.last; }
};

struct EntityScores {
  double precision = 0, recall = 0, f1 = 0;
  long long support = 0;    // true entities
  long long predicted = 0;  // predicted entities
  long long correct = 0;    // predicted entities that are true ones
};

struct EntityTypeScores {
  std::string type;
  EntityScores scores;
};

struct EntityReport {
  EntityScores micro;
  std::vector<EntityTypeScores> per_type;  // types seen in either side, in byte order (seqeval's sorted())
  double accuracy = 0;                     // token accuracy, seqeval's accuracy_score
};

// The entities of `sentences`, in the order seqeval finds them. Throws
// InputError for an empty tag (any mode) and, in strict mode, for a tag whose
// prefix the scheme does not allow.
std::vector<Entity> extract_entities(const TagSentences& sentences, const EntityOptions& options);

// Throws InputError when the two sides differ in sentence count or length.
EntityReport entity_report(const TagSentences& truth, const TagSentences& predicted,
                           const EntityOptions& options = {});

// Tokens whose predicted tag equals the true one, over all tokens; 0 for no
// token (seqeval divides by zero there). Throws InputError as entity_report.
double token_accuracy(const TagSentences& truth, const TagSentences& predicted);

// The scheme a model's label list (id2label's values) is written in. Its
// prefixes decide (with the suffix flag, the last character): L- or U- is
// BILOU; S-, or E- together with B-, is IOBES; E- without B- is IOE2; only B-,
// I- and O is IOB2. IOB1 and IOE1 have the same label lists as IOB2 and IOE2,
// so a label list alone names those. Throws InputError naming the tags when
// tags of BILOU and of IOBES/IOE are mixed ("E-PER" with "L-LOC"), and for a
// tag whose prefix no scheme has. Wherever seqeval's auto_detect names a
// scheme this names the same one; it also names the sets auto_detect refuses
// although one scheme fits (O with S- only, I- and O only). A list with no
// entity tag (only O) reads as IOB2, which reads it as any scheme would.
TagScheme detect_scheme(const std::vector<std::string>& labels, bool suffix = false);

const char* scheme_name(TagScheme scheme);
// "IOB1", "IOB2" (or "BIO"), "IOE1", "IOE2", "IOBES" (or "BIOES"), "BILOU";
// throws InputError naming the accepted ones otherwise.
TagScheme parse_scheme(const std::string& name);

// Internals shared by the two source files.
namespace entities_detail {
// Throws InputError for an empty tag: neither mode can read a prefix from it.
void require_tag(const std::string& tag);
std::vector<Entity> strict_entities(const TagSentences& sentences, TagScheme scheme, bool suffix);
}  // namespace entities_detail

}  // namespace runner
