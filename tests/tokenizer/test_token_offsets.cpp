// Character offsets of every token, identical to `tokenizers`' return_offsets_mapping
// (scripts/golden/token_offsets_golden.py wrote the goldens from transformers'
// PreTrainedTokenizerFast) on GLUE sentences and edge texts, for WordPiece
// (bert-base-uncased), byte-level BPE and two Unigram + Metaspace tokenizers.
#include "catch.h"

#include "shared.h"
#include "tokenizer/json_tokenizer.h"
#include "tokenizer/token_offsets.h"
#include "tokenizer/wordpiece_loader.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace runner;

namespace Catch {
template <>
struct StringMaker<CharSpan> {
  static std::string convert(const CharSpan& s) { return "(" + std::to_string(s.start) + ", " + std::to_string(s.end) + ")"; }
};
}  // namespace Catch

namespace {

std::shared_ptr<const Tokenizer> tokenizer_of(const std::string& name) {
  if (name == "wordpiece") return load_wordpiece({test::shared_dir() + "/models/bert-base-uncased/tokenizer.json"});
  return load_json_tokenizer(test::source_dir() + "/tests/tokenizer/golden/" + name + ".tokenizer.json");
}

std::string spans_text(const std::vector<CharSpan>& spans) {
  std::string out;
  for (const CharSpan& s : spans) out += "(" + std::to_string(s.start) + "," + std::to_string(s.end) + ")";
  return out;
}

void check_against_golden(const std::string& name) {
  std::ifstream in(test::source_dir() + "/tests/tokenizer/golden/token_offsets." + name + ".jsonl");
  REQUIRE(in.good());
  const auto tokenizer = tokenizer_of(name);
  int texts = 0;
  for (std::string line; std::getline(in, line); ++texts) {
    const auto g = nlohmann::json::parse(line);
    const std::string text = g["text"].get<std::string>();
    INFO(name << " text: " << text);
    const TokenizedText t = tokenize_with_offsets(*tokenizer, text);
    REQUIRE(t.ids == g["input_ids"].get<std::vector<int32_t>>());
    std::vector<CharSpan> want;
    for (const auto& o : g["offsets"]) want.push_back({o[0].get<int32_t>(), o[1].get<int32_t>()});
    INFO("runner: " << spans_text(t.offsets) << "\nwanted: " << spans_text(want));
    CHECK(t.offsets == want);
  }
  CHECK(texts == 170);
}

}  // namespace

TEST_CASE("offsets equal tokenizers' for WordPiece (bert-base-uncased)", "[tokenizer][offsets]") {
  check_against_golden("wordpiece");
}

TEST_CASE("offsets equal tokenizers' for byte-level BPE with trimmed offsets", "[tokenizer][offsets]") {
  check_against_golden("roberta_bpe");
}

TEST_CASE("offsets equal tokenizers' for Unigram with Metaspace", "[tokenizer][offsets]") {
  check_against_golden("deberta_unigram");
  check_against_golden("xlmr_spm");
}
