// What `runner predict` makes of a token classification model's tags, shown
// without a model: the words of a text with their code-point offsets, and the
// entities a sentence's tags give as seqeval's lenient chunker reads them
// (expected values derived by hand).
#include "train/predict_entities.h"

#include "catch.h"

using namespace runner;

namespace {

// "TYPE first-last" for each entity, joined by spaces.
std::string spans(const std::vector<std::string>& tags) {
  std::string out;
  for (const PredictedEntity& e : sentence_entities(tags))
    out += (out.empty() ? "" : " ") + e.type + " " + std::to_string(e.first) + "-" + std::to_string(e.last);
  return out;
}

}  // namespace

TEST_CASE("predict splits a text into words at whitespace, with code-point offsets", "[train][predict]") {
  // "Zoë" is 3 code points in 4 bytes; "東京" 2 code points in 6 bytes.
  const std::string text = "  Zoë\tflew to\n東京.  ";
  const std::vector<TextWord> words = split_text_words(text);
  REQUIRE(words.size() == 4);
  const std::vector<std::string> expected_words = {"Zoë", "flew", "to", "東京."};
  const std::vector<std::pair<int, int>> expected_chars = {{2, 5}, {6, 10}, {11, 13}, {14, 17}};
  for (size_t i = 0; i < words.size(); ++i) {
    INFO(i);
    CHECK(words[i].text == expected_words[i]);
    CHECK(words[i].chars.start == expected_chars[i].first);
    CHECK(words[i].chars.end == expected_chars[i].second);
    CHECK(text.substr(words[i].byte_start, words[i].byte_end - words[i].byte_start) == expected_words[i]);
  }
  CHECK(split_text_words("").empty());
  CHECK(split_text_words(" \t\r\n").empty());
}

TEST_CASE("predict reads a sentence's tags into entities as seqeval's default chunker", "[train][predict]") {
  // An I- after O starts an entity; B- after B- starts another; the last word can end one.
  CHECK(spans({"B-PER", "I-PER", "O", "I-LOC", "B-ORG", "B-ORG"}) == "PER 0-1 LOC 3-3 ORG 4-4 ORG 5-5");
  CHECK(spans({"O", "B-MISC"}) == "MISC 1-1");
  // A type change inside I- tags ends the entity.
  CHECK(spans({"B-PER", "I-LOC", "I-LOC"}) == "PER 0-0 LOC 1-2");
  // BILOU and IOBES tags.
  CHECK(spans({"U-PER", "B-LOC", "L-LOC", "S-ORG"}) == "PER 0-0 LOC 1-2 ORG 3-3");
  // A word cut off by max_length (no tag) reads as O.
  CHECK(spans({"B-PER", "", "I-PER"}) == "PER 0-0 PER 2-2");
  CHECK(spans({"O", "O"}).empty());
  CHECK(spans({}).empty());
}
