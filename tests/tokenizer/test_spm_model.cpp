// DeBERTa-v3's spm.model read without protobuf: its pieces, scores, charsmap
// and settings laid out as the tokenizer.json that DebertaV2Converter makes of
// it (tests/tokenizer/golden/deberta_spm.*, scripts/golden/spm_model_golden.py),
// and a file that is not a SentencePiece model refused naming the file.
#include "catch.h"

#include "shared.h"
#include "tokenizer/spm_tokenizer.h"
#include "tokenizer/tokenizer_loader.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace runner;

namespace {

std::string golden(const std::string& name) { return test::source_dir() + "/tests/tokenizer/golden/" + name; }

}  // namespace

TEST_CASE("spm.model: the pieces, charsmap and settings are the converted tokenizer.json's", "[tokenizer][spm_model]") {
  const std::string bytes = test::read_text(golden("deberta_spm.spm.model"));
  const SentencePieceModel model = parse_sentencepiece_model(bytes, "deberta_spm.spm.model");
  CHECK(model.pieces.size() == 2500);
  CHECK(model.unk_id == 3);
  CHECK(model.byte_fallback);
  CHECK(model.normalizer_name == "nmt_nfkc");
  CHECK(model.pieces[1].text == "[CLS]");
  CHECK(model.pieces[1].type == SentencePieceModel::kControl);
  CHECK(model.pieces[4].type == SentencePieceModel::kUserDefined);  // [MASK]
  const nlohmann::json got = deberta_v2_tokenizer_json(model, false, false, "spm.model");
  const nlohmann::json want = nlohmann::json::parse(test::read_text(golden("deberta_spm.tokenizer.json")));
  for (const char* part : {"normalizer", "pre_tokenizer", "post_processor", "model", "added_tokens"}) {
    INFO(part);
    CHECK(got.at(part) == want.at(part));  // scores: the same float32 values widened to double
  }
}

TEST_CASE("spm.model: a file that is not a SentencePiece model is an input error naming it", "[tokenizer][spm_model]") {
  const std::string dir = test::tmp_dir("spm_model_bad");
  const std::string bytes = test::read_text(golden("deberta_spm.spm.model"));
  std::ofstream(dir + "/spm.model", std::ios::binary) << bytes.substr(0, 1001);  // cut inside a piece
  try {
    load_tokenizer({dir});
    FAIL("a truncated spm.model loaded");
  } catch (const InputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find(dir + "/spm.model") != std::string::npos);
    CHECK(what.find("not a SentencePiece model") != std::string::npos);
  }
}
