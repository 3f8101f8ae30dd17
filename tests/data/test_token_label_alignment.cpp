// Sub-token labels of pre-split words, identical to what Transformers gives:
// tokenizer(words, is_split_into_words=True, truncation=True, max_length=N)
// and run_ner.py's tokenize_and_align_labels, both with label_all_tokens False
// and True (scripts/golden/ner_alignment_golden.py wrote the goldens), for
// WordPiece, byte-level BPE and two Unigram + Metaspace tokenizers.
#include "catch.h"

#include "data/token_label_alignment.h"
#include "shared.h"
#include "tokenizer/json_tokenizer.h"
#include "tokenizer/wordpiece_loader.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace runner;
using Catch::Contains;

namespace {

const std::vector<std::string> kLabels = {"O",     "B-PER",  "I-PER", "B-LOC",  "I-LOC",
                                          "B-ORG", "I-ORG", "B-MISC", "I-MISC"};

std::string golden_dir() { return test::source_dir() + "/tests/data/golden/"; }

std::vector<nlohmann::json> golden_lines(const std::string& name) {
  std::ifstream in(golden_dir() + "ner_alignment." + name + ".jsonl");
  REQUIRE(in.good());
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

std::shared_ptr<const Tokenizer> tokenizer_of(const std::string& name) {
  if (name == "wordpiece") return load_wordpiece({test::shared_dir() + "/models/bert-base-uncased/tokenizer.json"});
  return load_json_tokenizer(test::source_dir() + "/tests/tokenizer/golden/" + name + ".tokenizer.json");
}

// Every sentence of the golden CoNLL file at each max_length, both labelings.
void check_against_golden(const std::string& name, bool add_prefix_space) {
  const std::string file = golden_dir() + "ner_sentences.conll";
  const auto sentences = read_conll(file, {}, {kLabels});
  const auto lines = golden_lines(name);
  const auto tokenizer = tokenizer_of(name);
  REQUIRE(lines.at(0)["labels"].get<std::vector<std::string>>() == kLabels);
  REQUIRE(lines.size() == 1 + sentences.size() * lines[0]["max_lengths"].size());
  for (int max_length : lines[0]["max_lengths"].get<std::vector<int>>()) {
    AlignOptions first{max_length, SubwordLabels::First, add_prefix_space, false};
    AlignOptions all{max_length, SubwordLabels::All, add_prefix_space, false};
    const AlignedSplit split_first = align_sentences(*tokenizer, sentences, kLabels, first, file);
    const AlignedSplit split_all = align_sentences(*tokenizer, sentences, kLabels, all, file);
    CHECK(split_first.truncated == lines[0]["truncated"][std::to_string(max_length)].get<size_t>());
    for (size_t i = 1; i < lines.size(); ++i) {
      const nlohmann::json& g = lines[i];
      if (g["max_length"].get<int>() != max_length) continue;
      const size_t s = g["sentence"].get<size_t>();
      INFO(name << " max_length " << max_length << " sentence " << s << " (line " << sentences[s].line << ")");
      const AlignedSentence& a = split_first.sentences[s];
      CHECK(a.encoding.input_ids == g["input_ids"].get<std::vector<int32_t>>());
      CHECK(a.encoding.token_type_ids == g["token_type_ids"].get<std::vector<int32_t>>());
      CHECK(a.labels == g["labels_first"].get<std::vector<int32_t>>());
      CHECK(split_all.sentences[s].labels == g["labels_all"].get<std::vector<int32_t>>());
    }
  }
}

}  // namespace

TEST_CASE("alignment equals Transformers' for WordPiece (bert-base-uncased)", "[data][token_align]") {
  check_against_golden("wordpiece", false);
}

TEST_CASE("alignment equals Transformers' for byte-level BPE with add_prefix_space", "[data][token_align]") {
  check_against_golden("roberta_bpe", true);
}

TEST_CASE("alignment equals Transformers' for Unigram with Metaspace", "[data][token_align]") {
  check_against_golden("deberta_unigram", false);
  check_against_golden("xlmr_spm", false);
}

TEST_CASE("b_to_i maps each B- label to its I- label and leaves the rest", "[data][token_align]") {
  CHECK(b_to_i_labels(kLabels) == std::vector<int32_t>{0, 2, 2, 4, 4, 6, 6, 8, 8});
  // A B- label without its I- label keeps its own id, as run_ner's mapping does.
  CHECK(b_to_i_labels({"O", "B-X", "B-Y", "I-Y"}) == std::vector<int32_t>{0, 1, 3, 3});
}

TEST_CASE("label_all_tokens gives a B- word's later pieces the I- label", "[data][token_align]") {
  const auto tokenizer = tokenizer_of("wordpiece");
  const TaggedSentence s{{"Blackburnshire", "rejects"}, {"B-LOC", "O"}, 1};
  bool truncated = false;
  const AlignedSentence all = align_sentence(*tokenizer, s, kLabels, {128, SubwordLabels::All}, "x.conll", truncated);
  const AlignedSentence first = align_sentence(*tokenizer, s, kLabels, {128, SubwordLabels::First}, "x.conll", truncated);
  REQUIRE(all.labels.size() > 4);  // the place name is more than one piece
  CHECK(all.labels.front() == kIgnoredLabel);
  CHECK(all.labels[1] == 3);
  CHECK(all.labels[2] == 4);
  CHECK(first.labels[2] == kIgnoredLabel);
  CHECK(all.labels.back() == kIgnoredLabel);
  CHECK_FALSE(truncated);
}

TEST_CASE("a sentence cut at max_length is counted, or refused with its file and line", "[data][token_align]") {
  const auto tokenizer = tokenizer_of("wordpiece");
  const std::vector<TaggedSentence> sentences = {{{"a", "b", "c", "d"}, {"O", "O", "O", "O"}, 1},
                                                 {{"a", "b"}, {"O", "O"}, 6}, {{"a", "b", "c", "d", "e"}, {"O", "O", "O", "O", "O"}, 9}};
  const AlignedSplit split = align_sentences(*tokenizer, sentences, kLabels, {5}, "dev.conll");
  CHECK(split.truncated == 2);
  CHECK(split.sentences[0].encoding.input_ids.size() == 5);
  CHECK(split.sentences[0].labels == std::vector<int32_t>{kIgnoredLabel, 0, 0, 0, kIgnoredLabel});
  try {
    align_sentences(*tokenizer, sentences, kLabels, {5, SubwordLabels::First, false, true}, "dev.conll");
    FAIL("a sentence longer than max_length was not refused");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Contains("dev.conll:1"));
    CHECK_THAT(e.what(), Contains("4 sub-tokens long; max_length 5 keeps 3"));
    CHECK_THAT(e.what(), Contains("raise max_length"));
  }
}

TEST_CASE("a tag outside the label list is refused with its file and line", "[data][token_align]") {
  const auto tokenizer = tokenizer_of("wordpiece");
  bool truncated = false;
  const TaggedSentence s{{"Paris"}, {"B-GPE"}, 7};
  CHECK_THROWS_WITH(align_sentence(*tokenizer, s, kLabels, {}, "dev.conll", truncated),
                    Contains("dev.conll:7") && Contains("tag \"B-GPE\" is not in the label list"));
}
