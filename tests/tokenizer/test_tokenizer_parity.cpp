// Exact parity with Hugging Face's slow BertTokenizer (transformers 4.40.2) on
// every golden tokenization file: the ids and token type ids must be identical.
#include "catch.h"

#include "shared.h"
#include "tokenizer/encoding.h"
#include "tokenizer/json_tokenizer.h"
#include "tokenizer/tokenizer_loader.h"
#include "tokenizer/wordpiece_loader.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

using namespace runner;

namespace {

struct ParityResult {
  size_t lines = 0;
  size_t mismatches = 0;
  std::string first_mismatch;
};

ParityResult check_file(const Tokenizer& tok, const std::string& name) {
  std::ifstream in(test::shared_dir() + "/golden/tokenization/" + name);
  REQUIRE(in.good());
  ParityResult r;
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    std::string a = j["text_a"].get<std::string>();
    std::optional<std::string> b;
    if (!j["text_b"].is_null()) b = j["text_b"].get<std::string>();
    EncodeOptions opts;
    opts.max_length = j["max_length"].get<int>();
    Encoding e = encode(tok, a, b ? std::optional<std::string_view>(*b) : std::nullopt, opts);
    auto want_ids = j["input_ids"].get<std::vector<int32_t>>();
    auto want_types = j["token_type_ids"].get<std::vector<int32_t>>();
    ++r.lines;
    if (e.input_ids != want_ids || e.token_type_ids != want_types) {
      if (r.mismatches++ == 0) r.first_mismatch = j["id"].get<std::string>();
    }
  }
  return r;
}

const char* kGoldenFiles[] = {"mrpc_train.jsonl", "mrpc_dev.jsonl", "sst2_dev.jsonl",
                              "edge_cases.jsonl"};

void check_all(const Tokenizer& tok, const char* label, size_t expected_mismatches = 0) {
  size_t total = 0, mismatches = 0;
  for (const char* file : kGoldenFiles) {
    ParityResult r = check_file(tok, file);
    std::cout << "parity[" << label << "] " << file << ": " << r.lines << " lines, "
              << r.mismatches << " mismatches"
              << (r.mismatches ? " (first: " + r.first_mismatch + ")" : std::string()) << "\n";
    total += r.lines;
    mismatches += r.mismatches;
  }
  std::cout << "parity[" << label << "] total: " << total << " lines, " << mismatches
            << " mismatches\n";
  CHECK(total == 3668 + 408 + 872 + 68);
  CHECK(mismatches == expected_mismatches);
}

}  // namespace

TEST_CASE("wordpiece from vocab.txt matches BertTokenizer on every golden file", "[tokenizer]") {
  WordPieceSource src;
  src.path = test::shared_dir() + "/models/bert-base-uncased";
  src.format = "vocab_txt";
  check_all(*load_wordpiece(src), "vocab.txt");
}

TEST_CASE("wordpiece from tokenizer.json matches BertTokenizer on every golden file",
          "[tokenizer]") {
  WordPieceSource src;
  src.path = test::shared_dir() + "/models/bert-base-uncased";
  src.format = "tokenizer_json";
  auto tok = load_wordpiece(src);
  CHECK(tok->vocab_size() == 30522);
  check_all(*tok, "tokenizer.json");
  // Chosen from the folder, BERT's own tokenizer.json is the WordPiece tokenizer's too.
  CHECK(std::dynamic_pointer_cast<const WordPieceTokenizer>(load_tokenizer(src)) != nullptr);
}

TEST_CASE("the tokenizer.json pipeline reads BERT's tokenizer.json as BertTokenizer tokenizes",
          "[tokenizer]") {
  // BertNormalizer, BertPreTokenizer, the WordPiece model and BERT's template,
  // each through the part registry, on the same golden files.
  auto tok = load_json_tokenizer(test::shared_dir() + "/models/bert-base-uncased/tokenizer.json");
  CHECK(tok->vocab_size() == 30522);
  CHECK(tok->special_ids().pad == 0);
  // One line differs, as it does between the two libraries: truncating a pair of
  // equal lengths to an odd room, tokenizers gives the odd token to the second
  // text, BertTokenizer to the first (the ids are tokenizers 0.23.3's).
  check_all(*tok, "pipeline", 1);
  EncodeOptions opts;
  opts.max_length = 8;
  Encoding tie = encode(*tok, "one two three four five", std::optional<std::string_view>("six seven eight nine ten"), opts);
  CHECK(tie.input_ids == std::vector<int32_t>{101, 2028, 2048, 102, 2416, 2698, 2809, 102});
  CHECK(tie.token_type_ids == std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 1});
}
