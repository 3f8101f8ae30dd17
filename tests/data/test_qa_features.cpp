// QA windows identical to run_qa.py's prepare_train_features / prepare_validation_features
// (scripts/golden/qa_features_golden.py wrote the goldens with Transformers' fast tokenizers):
// ids, type ids, attention masks, sequence ids, context offsets and start/end positions of
// every window of 60 SQuAD-format questions, at max_length/doc_stride 384/128, 64/16 and 48/8,
// for WordPiece (bert-base-uncased), byte-level BPE and Unigram + Metaspace.
#include "catch.h"

#include "data/qa_features.h"
#include "shared.h"
#include "tokenizer/json_tokenizer.h"
#include "tokenizer/wordpiece_loader.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

using namespace runner;
using Catch::Contains;

namespace {

std::string golden_dir() { return test::source_dir() + "/tests/data/golden/"; }

std::shared_ptr<const Tokenizer> tokenizer_of(const std::string& name) {
  if (name == "wordpiece") return load_wordpiece({test::shared_dir() + "/models/bert-base-uncased/tokenizer.json"});
  return load_json_tokenizer(test::source_dir() + "/tests/tokenizer/golden/" + name + ".tokenizer.json");
}

void check_against_golden(const std::string& name) {
  const std::string file = golden_dir() + "qa_squad.json";
  const auto examples = read_squad_json(file, SquadVersion::V2_0);
  const auto tokenizer = tokenizer_of(name);
  std::map<std::pair<int, int>, std::vector<nlohmann::json>> by_setting;
  std::ifstream in(golden_dir() + "qa_features." + name + ".jsonl");
  REQUIRE(in.good());
  for (std::string line; std::getline(in, line);) {
    auto g = nlohmann::json::parse(line);
    by_setting[{g["max_length"].get<int>(), g["doc_stride"].get<int>()}].push_back(std::move(g));
  }
  REQUIRE(by_setting.size() == 3);
  for (const auto& [setting, lines] : by_setting) {
    const auto features = qa_features(*tokenizer, examples, {setting.first, setting.second, true}, file);
    INFO(name << " max_length " << setting.first << " doc_stride " << setting.second);
    REQUIRE(features.size() == lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      const auto& g = lines[i];
      const QaFeature& f = features[i];
      INFO("window " << i << " of example " << f.example);
      CHECK(f.example == g["example"].get<size_t>());
      CHECK(f.encoding.input_ids == g["input_ids"].get<std::vector<int32_t>>());
      if (g.contains("token_type_ids")) CHECK(f.encoding.token_type_ids == g["token_type_ids"].get<std::vector<int32_t>>());
      CHECK(f.attention_mask == g["attention_mask"].get<std::vector<int32_t>>());
      std::vector<int8_t> seq;
      for (const auto& s : g["sequence_ids"]) seq.push_back(s.is_null() ? -1 : static_cast<int8_t>(s.get<int>()));
      CHECK(f.sequence_ids == seq);
      std::vector<std::optional<CharSpan>> offsets;
      for (const auto& o : g["offsets"])
        offsets.push_back(o.is_null() ? std::nullopt : std::optional<CharSpan>(CharSpan{o[0].get<int32_t>(), o[1].get<int32_t>()}));
      CHECK(f.offsets == offsets);
      CHECK(f.start_position == g["start_position"].get<int32_t>());
      CHECK(f.end_position == g["end_position"].get<int32_t>());
    }
  }
}

}  // namespace

TEST_CASE("QA windows equal run_qa.py's for WordPiece (bert-base-uncased)", "[data][qa_features]") {
  check_against_golden("wordpiece");
}

TEST_CASE("QA windows equal run_qa.py's for byte-level BPE", "[data][qa_features]") { check_against_golden("roberta_bpe"); }

TEST_CASE("QA windows equal run_qa.py's for Unigram with Metaspace", "[data][qa_features]") { check_against_golden("xlmr_spm"); }

TEST_CASE("a question with no room for its context and a stride too wide are refused", "[data][qa_features]") {
  const auto tokenizer = tokenizer_of("wordpiece");
  const std::vector<QaExample> ex{{"a", "what is the name of the big cat", "the cat sat on the mat in the sun", {}, "line 4"}};
  CHECK_THROWS_WITH(qa_features(*tokenizer, ex, {10, 2, true}, "dev.jsonl"),
                    Contains("dev.jsonl") && Contains("line 4") && Contains("leaving no room in max_length 10"));
  CHECK_THROWS_WITH(qa_features(*tokenizer, ex, {14, 3, true}, "dev.jsonl"),
                    Contains("doc_stride 3 is not below the 3 tokens") && Contains("lower doc_stride below 3"));
  // 9 context tokens in windows of 3, each 2 on from the last: 0-3, 2-5, 4-7, 6-9.
  CHECK(qa_features(*tokenizer, ex, {14, 1, true}, "dev.jsonl").size() == 4);
}

TEST_CASE("an answer starting in the last context token is placed as run_qa.py's search places it",
          "[data][qa_features]") {
  // run_qa.py walks past every position whose offset starts at or before the answer's start;
  // [SEP] and the padding have offsets (0, 0), so the walk runs to the end of the padded
  // window and start_position is its last index (15), while end_position is "sat" (5).
  // qa_features_golden.py's windows() gives the same 15 and 5 for this example.
  const auto tokenizer = tokenizer_of("wordpiece");
  const std::vector<QaExample> ex{{"a", "who", "the cat sat", {{"sat", 8}}, "line 1"}};
  const auto f = qa_features(*tokenizer, ex, {16, 4, true}, "dev.jsonl");
  REQUIRE(f.size() == 1);
  CHECK(f[0].encoding.input_ids == std::vector<int32_t>{101, 2040, 102, 1996, 4937, 2938, 102, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(f[0].start_position == 15);
  CHECK(f[0].end_position == 5);
}
