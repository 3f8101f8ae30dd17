// Token classification files: CoNLL columns and JSONL sentences read into
// words and tags, and every refusal naming the file, the line and the fix.
#include "catch.h"

#include "data/token_tag_rows.h"
#include "shared.h"
#include "util/diagnostic.h"

#include <fstream>

using namespace runner;
using Catch::Contains;

namespace {

const std::vector<std::string> kBio = {"O", "B-PER", "I-PER", "B-LOC", "I-LOC"};

std::vector<TaggedSentence> conll(const std::string& text, ConllColumns columns = {}, TagRules rules = {}) {
  return parse_conll(text, "train.conll", columns, rules);
}

std::vector<TaggedSentence> jsonl(const std::string& text, JsonlTagKeys keys = {}, TagRules rules = {}) {
  return parse_tag_jsonl(text, "train.jsonl", keys, rules);
}

// The message of the InputError `read` throws, or "" when it throws none.
template <class Fn>
std::string refusal(Fn read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("CoNLL: -DOCSTART- and runs of blank lines end sentences and make none", "[data][token_tags]") {
  const auto s = conll(
      "-DOCSTART- -X- -X- O\n\n"
      "EU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\n\n\n"
      "-DOCSTART- -X- -X- O\n\n"
      "Peter NNP B-NP B-PER\r\nBlackburn NNP I-NP I-PER\r\n");
  REQUIRE(s.size() == 2);
  CHECK(s[0].words == std::vector<std::string>{"EU", "rejects"});
  CHECK(s[0].tags == std::vector<std::string>{"B-ORG", "O"});
  CHECK(s[0].line == 3);
  // The last sentence has no blank line after it and still counts.
  CHECK(s[1].words == std::vector<std::string>{"Peter", "Blackburn"});
  CHECK(s[1].tags == std::vector<std::string>{"B-PER", "I-PER"});
  CHECK(s[1].line == 10);
}

TEST_CASE("CoNLL: the tag and word columns can be chosen; tabs separate too", "[data][token_tags]") {
  const std::string text = "EU\tNNP B-NP\tB-ORG\nrejects VBZ B-VP O\n";
  const auto chunks = conll(text, {0, 2});
  CHECK(chunks[0].tags == std::vector<std::string>{"B-NP", "B-VP"});
  const auto pos = conll(text, {1, 3});
  CHECK(pos[0].words == std::vector<std::string>{"NNP", "VBZ"});
  CHECK(pos[0].tags == std::vector<std::string>{"B-ORG", "O"});
}

TEST_CASE("CoNLL: a line with too few columns names its line and the column count", "[data][token_tags]") {
  const std::string msg = refusal([] { conll("EU NNP B-ORG\nrejects O\n"); });
  CHECK_THAT(msg, Contains("train.conll:2"));
  CHECK_THAT(msg, Contains("has 2 columns, expected 3 as on line 1"));
  CHECK_THAT(msg, Contains("same columns"));
  const std::string one = refusal([] { conll("EU\n"); });
  CHECK_THAT(one, Contains("train.conll:1"));
  CHECK_THAT(one, Contains("has 1 columns, expected 2"));
  const std::string chosen = refusal([] { conll("EU NNP B-ORG\n", {0, 3}); });
  CHECK_THAT(chosen, Contains("expected 4 (the word is column 0, the tag column 3)"));
}

TEST_CASE("CoNLL: a tag outside the label list is refused with the list", "[data][token_tags]") {
  const std::string msg = refusal([] { conll("EU B-PER\n\nrejects B-ORG\n", {}, {kBio}); });
  CHECK_THAT(msg, Contains("train.conll:3"));
  CHECK_THAT(msg, Contains("tag \"B-ORG\" is not in the label list (O, B-PER, I-PER, B-LOC, I-LOC)"));
  CHECK_THAT(msg, Contains("add \"B-ORG\" to the label list"));
}

TEST_CASE("CoNLL: BILOU tags mixed with IOBES tags are refused at the second scheme", "[data][token_tags]") {
  const std::string msg = refusal([] { conll("Peter U-PER\nin O\n\nParis S-LOC\n"); });
  CHECK_THAT(msg, Contains("train.conll:4"));
  CHECK_THAT(msg, Contains("\"U-PER\" (line 1) is BILOU, \"S-LOC\" (line 4) is IOBES or IOE"));
  CHECK_THAT(msg, Contains("one scheme"));
  // Each scheme alone reads.
  CHECK(conll("Peter B-PER\nSmith L-PER\nin O\nParis U-LOC\n").size() == 1);
  CHECK(conll("Peter B-PER\nSmith E-PER\nin O\nParis S-LOC\n").size() == 1);
}

TEST_CASE("CoNLL: a file is read from disk with its name in errors", "[data][token_tags]") {
  const std::string path = test::tmp_dir("token_tags") + "/dev.conll";
  std::ofstream(path) << "EU B-LOC\nrejects\tO\n";
  CHECK(read_conll(path, {}, {kBio}).empty() == false);
  std::ofstream(path) << "EU B-XXX\n";
  CHECK_THAT(refusal([&] { read_conll(path, {}, {kBio}); }), Contains(path + ":1"));
}

TEST_CASE("JSONL: tokens and tags, with configurable keys and blank lines skipped", "[data][token_tags]") {
  const auto s = jsonl("{\"tokens\": [\"EU\", \"rejects\"], \"tags\": [\"B-ORG\", \"O\"]}\n\n"
                       "{\"tokens\": [\"Peter\"], \"tags\": [\"B-PER\"]}\n");
  REQUIRE(s.size() == 2);
  CHECK(s[0].words == std::vector<std::string>{"EU", "rejects"});
  CHECK(s[1].tags == std::vector<std::string>{"B-PER"});
  CHECK(s[1].line == 3);
  const auto keyed = jsonl("{\"words\": [\"Paris\"], \"ner\": [\"B-LOC\"]}\n", {"words", "ner"});
  CHECK(keyed[0].tags == std::vector<std::string>{"B-LOC"});
}

TEST_CASE("JSONL: tags given as label ids take the label list's names", "[data][token_tags]") {
  const auto s = jsonl("{\"tokens\": [\"Paris\", \"is\"], \"tags\": [3, 0]}\n", {}, {kBio});
  CHECK(s[0].tags == std::vector<std::string>{"B-LOC", "O"});
  const std::string msg = refusal([] { jsonl("{\"tokens\": [\"Paris\"], \"tags\": [9]}\n", {}, {kBio}); });
  CHECK_THAT(msg, Contains("train.jsonl:1"));
  CHECK_THAT(msg, Contains("ids 0 to 4"));
}

TEST_CASE("JSONL: tokens and tags of different lengths are refused with both counts", "[data][token_tags]") {
  const std::string msg = refusal(
      [] { jsonl("{\"tokens\": [\"a\"], \"tags\": [\"O\"]}\n{\"tokens\": [\"a\", \"b\"], \"tags\": [\"O\"]}\n"); });
  CHECK_THAT(msg, Contains("train.jsonl:2"));
  CHECK_THAT(msg, Contains("\"tokens\" has 2 entries but \"tags\" has 1"));
  CHECK_THAT(msg, Contains("exactly one tag"));
}

TEST_CASE("JSONL: an empty sentence is refused", "[data][token_tags]") {
  const std::string msg = refusal([] { jsonl("{\"tokens\": [], \"tags\": []}\n"); });
  CHECK_THAT(msg, Contains("train.jsonl:1"));
  CHECK_THAT(msg, Contains("no words"));
  CHECK_THAT(msg, Contains("remove the line"));
}

TEST_CASE("JSONL: a missing key, a tag outside the list and mixed schemes are refused", "[data][token_tags]") {
  const std::string missing = refusal([] { jsonl("{\"words\": [\"a\"], \"tags\": [\"O\"]}\n"); });
  CHECK_THAT(missing, Contains("train.jsonl:1"));
  CHECK_THAT(missing, Contains("no list under \"tokens\""));
  const std::string outside = refusal([] { jsonl("{\"tokens\": [\"a\"], \"tags\": [\"B-ORG\"]}\n", {}, {kBio}); });
  CHECK_THAT(outside, Contains("tag \"B-ORG\" is not in the label list"));
  const std::string mixed =
      refusal([] { jsonl("{\"tokens\": [\"a\"], \"tags\": [\"E-PER\"]}\n{\"tokens\": [\"b\"], \"tags\": [\"L-PER\"]}\n"); });
  CHECK_THAT(mixed, Contains("train.jsonl:2"));
  CHECK_THAT(mixed, Contains("tags of two schemes are mixed"));
  const std::string broken = refusal([] { jsonl("{\"tokens\": [\"a\"\n"); });
  CHECK_THAT(broken, Contains("train.jsonl:1"));
}
