// Hostile tokenizer files and texts: a count, a score or a link that a loader
// must refuse by name instead of tokenizing wrongly or failing with a raw
// library message, a normalizer chain whose growth multiplies, and the type
// ids a pipeline gives, which validate compares with the model's table.
#include "catch.h"

#include "shared.h"
#include "tokenizer/encoding.h"
#include "tokenizer/tokenizer_loader.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace runner;

namespace {

std::string golden(const std::string& name) { return test::source_dir() + "/tests/tokenizer/golden/" + name; }

nlohmann::json golden_json(const std::string& name) {
  std::ifstream in(golden(name));
  return nlohmann::json::parse(in);
}

std::string write_tokenizer(const std::string& name, const nlohmann::json& j) {
  std::string dir = test::tmp_dir(name);
  std::ofstream(dir + "/tokenizer.json") << j.dump();
  return dir;
}

// What loading `dir` (or encoding `text` with it) refuses, or "loaded".
std::string refusal(const std::string& dir, const std::string& text = "a b") {
  try {
    auto tok = load_tokenizer({dir});
    std::vector<int32_t> ids;
    tok->tokenize(text, ids);
  } catch (const InputError& e) {
    return e.diagnostic().format();
  }
  return "loaded";
}

}  // namespace

TEST_CASE("a negative max_input_chars_per_word is refused, on the WordPiece path and in a pipeline", "[tokenizer]") {
  nlohmann::json bert = golden_json("wordpiece_seq.tokenizer.json");
  bert["model"]["max_input_chars_per_word"] = -5;
  std::string error = refusal(write_tokenizer("hostile_max_chars_pipeline", bert));
  INFO(error);
  CHECK_THAT(error, Catch::Contains("tokenizer.json") && Catch::Contains("max_input_chars_per_word") &&
                        Catch::Contains("found -5"));
  // bert-base-uncased's own file goes to the WordPiece tokenizer.
  std::ifstream in(test::shared_dir() + "/models/bert-base-uncased/tokenizer.json");
  nlohmann::json plain = nlohmann::json::parse(in);
  plain["model"]["max_input_chars_per_word"] = -1;
  const std::string dir = write_tokenizer("hostile_max_chars_wordpiece", plain);
  error = refusal(dir);
  INFO(error);
  CHECK_THAT(error, Catch::Contains(dir + "/tokenizer.json") && Catch::Contains("found -1"));
}

// The first piece's score (field 2, a fixed32 float after the piece's text)
// set to NaN in DeBERTa-v3's spm.model.
TEST_CASE("an spm.model piece with a NaN score is refused, naming the file", "[tokenizer][spm_model]") {
  std::string bytes = test::read_text(golden("deberta_spm.spm.model"));
  REQUIRE(bytes.size() > 16);
  REQUIRE(bytes[0] == '\x0a');          // pieces: field 1, length-delimited
  size_t at = 1;
  while (static_cast<unsigned char>(bytes[at]) & 0x80) ++at;  // the entry's length
  ++at;
  REQUIRE(bytes[at] == '\x0a');         // the piece's text
  const size_t text_length = static_cast<unsigned char>(bytes[at + 1]);
  at += 2 + text_length;
  REQUIRE(bytes[at] == '\x15');         // its score: field 2, fixed32
  const float nan = std::nanf("");
  std::memcpy(&bytes[at + 1], &nan, 4);
  const std::string dir = test::tmp_dir("hostile_spm_nan");
  std::ofstream(dir + "/spm.model", std::ios::binary) << bytes;
  const std::string error = refusal(dir);
  INFO(error);
  CHECK_THAT(error, Catch::Contains(dir + "/spm.model") && Catch::Contains("expected a finite score"));
}

TEST_CASE("a tokenizer.json that is a link to itself is refused with the runner's message", "[tokenizer]") {
  const std::string dir = test::tmp_dir("hostile_link_loop");
  fs::create_symlink("tokenizer.json", dir + "/tokenizer.json");
  for (const std::string& path : {dir, dir + "/tokenizer.json"}) {
    INFO(path);
    const std::string error = refusal(path);
    INFO(error);
    CHECK_THAT(error, Catch::Contains(dir + "/tokenizer.json") && Catch::Contains("Too many levels of symbolic links"));
    CHECK_THAT(error, !Catch::Contains("filesystem error"));
  }
  auto r = test::run_command("echo '{\"text_a\": \"a\"}' | " + test::runner_exe() + " tokenize --tokenizer " + dir +
                             "/tokenizer.json 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, !Catch::Contains("filesystem error"));
}

// Each Replace alone grows a text 4 times, within its own bound; a Sequence of
// six would grow it 4^6 = 4096 times, and the chain is bounded as one.
TEST_CASE("a Sequence of normalizers that multiplies a text's length is refused", "[tokenizer]") {
  nlohmann::json j = golden_json("roberta_bpe.tokenizer.json");
  nlohmann::json rules = nlohmann::json::array();
  for (int i = 0; i < 6; ++i) rules.push_back({{"type", "Replace"}, {"pattern", {{"String", "a"}}}, {"content", "aaaa"}});
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", rules}};
  const std::string error = refusal(write_tokenizer("hostile_replace_chain", j), std::string(1000, 'a'));
  INFO(error);
  CHECK_THAT(error, Catch::Contains("Sequence normalizer would grow a text of 1000 bytes") &&
                        Catch::Contains("more than 4 times"));
}

TEST_CASE("a Unigram model without unk_id names its file when a text needs the unknown piece", "[tokenizer]") {
  nlohmann::json j = golden_json("xlmr_spm.tokenizer.json");
  j["model"].erase("unk_id");
  const std::string dir = write_tokenizer("hostile_unigram_no_unk", j);
  const std::string error = refusal(dir, "\xE2\x98\x83");  // a snowman: no piece has it
  INFO(error);
  CHECK_THAT(error, Catch::Contains(dir + "/tokenizer.json") && Catch::Contains("model.unk_id") &&
                        Catch::Contains("has no unk_id"));
}

TEST_CASE("the largest type id a tokenizer gives, known without tokenizing", "[tokenizer]") {
  // BERT's WordPiece: a pair's second text is type 1.
  auto bert = load_tokenizer({test::shared_dir() + "/models/bert-base-uncased"});
  CHECK(bert->largest_type_id(false) == 0);
  CHECK(bert->largest_type_id(true) == 1);
  // RoBERTa's processor gives every token type 0.
  auto roberta = load_tokenizer({write_tokenizer("hostile_types_roberta", golden_json("roberta_bpe.tokenizer.json"))});
  CHECK(roberta->largest_type_id(true) == 0);
  // A template's pair, as encoding it shows.
  nlohmann::json j = golden_json("roberta_bpe.tokenizer.json");
  j["post_processor"] = {{"type", "TemplateProcessing"},
                         {"single", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                         {"pair", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 3}}}}}},
                         {"special_tokens", nlohmann::json::object()}};
  auto templated = load_tokenizer({write_tokenizer("hostile_types_template", j)});
  CHECK(templated->largest_type_id(false) == 0);
  CHECK(templated->largest_type_id(true) == 3);
  Encoding e = encode(*templated, "a film", std::string_view("the films"), EncodeOptions{});
  CHECK(*std::max_element(e.token_type_ids.begin(), e.token_type_ids.end()) == 3);
}

TEST_CASE("a Unigram model with an empty vocabulary is refused by name, not by an unsigned wrap", "[tokenizer]") {
  nlohmann::json j = golden_json("xlmr_spm.tokenizer.json");
  j["model"]["vocab"] = nlohmann::json::array();
  j["added_tokens"] = nlohmann::json::array();
  j["post_processor"] = nullptr;
  const std::string dir = write_tokenizer("hostile_unigram_empty", j);
  const std::string error = refusal(dir);
  INFO(error);
  CHECK_THAT(error, Catch::Contains(dir + "/tokenizer.json") && Catch::Contains("an empty vocabulary"));
  CHECK_THAT(error, !Catch::Contains("18446744073709551615"));
}
