// Exact parity with Hugging Face tokenizers 0.23.3 for tokenizer.json files it
// trained (scripts/golden/tokenizer_json_goldens.py): byte-level BPE with
// RoBERTa's post-processor, Unigram + Metaspace with DeBERTa-v3's template,
// byte-level BPE with ignore_merges and a template as ModernBERT's, and a
// SentencePiece model (Precompiled charsmap) wrapped as DeBERTa-v3's and
// XLM-R's tokenizer.json files wrap theirs; and WordPiece and byte-fallback
// BPE (as Llama 2's) laid out with other parts. The ids,
// attention mask and type ids of every MRPC pair and SST-2 sentence (train and
// dev, max_length 128, longest_first) hash to the golden values, and every
// edge case (accents, CJK, emoji, control characters, glued special tokens,
// truncation at 8, 9 and 16) gives the golden ids exactly.
#include "catch.h"

#include "shared.h"
#include "tokenizer/encoding.h"
#include "tokenizer/tokenizer_loader.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

using namespace runner;

namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

// FNV-1a 64 over each value as 4 little-endian bytes, as the golden script.
uint64_t fnv1a(const std::vector<int32_t>& values, uint64_t h) {
  for (int32_t v : values) {
    auto u = static_cast<uint32_t>(v);
    for (int byte = 0; byte < 4; ++byte) {
      h ^= (u >> (8 * byte)) & 0xFF;
      h *= kFnvPrime;
    }
  }
  return h;
}

// An unpadded encoding attends to every token: its mask is all ones.
std::vector<int32_t> mask_of(const Encoding& e) { return std::vector<int32_t>(e.input_ids.size(), 1); }

uint64_t encoding_hash(const Encoding& e, uint64_t h) {
  return fnv1a(e.token_type_ids, fnv1a(mask_of(e), fnv1a(e.input_ids, h)));
}

std::string golden_dir() { return test::source_dir() + "/tests/tokenizer/golden/"; }

// TSV rows split on tabs (no quoting), header skipped: the golden script's reading.
std::vector<std::vector<std::string>> read_rows(const std::string& path, std::vector<size_t> columns) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, '\t');) cells.push_back(cell);
    if (!line.empty() && line.back() == '\t') cells.emplace_back();
    std::vector<std::string> row;
    for (size_t c : columns) row.push_back(c < cells.size() ? cells[c] : std::string());
    rows.push_back(row);
  }
  return rows;
}

std::string show(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

Encoding encode_row(const Tokenizer& tok, const std::vector<std::string>& row, int max_length) {
  EncodeOptions opts;
  opts.max_length = max_length;
  std::optional<std::string_view> b;
  if (row.size() > 1) b = row[1];
  return encode(tok, row[0], b, opts);
}

// One GLUE file against its block of NAME.hashes.txt; returns the mismatches.
size_t check_glue_file(const Tokenizer& tok, std::istream& hashes, const std::string& name) {
  std::string word, file, lines_word, total_word, total_hex;
  size_t lines = 0;
  hashes >> word >> file >> lines_word >> lines >> total_word >> total_hex;
  REQUIRE(word == "file");
  std::string low_bytes, chunk;
  while (low_bytes.size() < 2 * lines && hashes >> chunk) low_bytes += chunk;
  const bool pairs = file.rfind("MRPC", 0) == 0;
  auto rows = read_rows(test::shared_dir() + "/data/glue/" + file, pairs ? std::vector<size_t>{3, 4}
                                                                         : std::vector<size_t>{0});
  CHECK(rows.size() == lines);
  uint64_t total = kFnvOffset;
  size_t mismatches = 0;
  for (size_t i = 0; i < rows.size() && i < lines; ++i) {
    Encoding e = encode_row(tok, rows[i], 128);
    total = encoding_hash(e, total);
    unsigned low = static_cast<unsigned>(encoding_hash(e, kFnvOffset) & 0xFF);
    if (low == std::stoul(low_bytes.substr(2 * i, 2), nullptr, 16)) continue;
    if (++mismatches <= 3)
      std::cout << name << " " << file << " line " << i + 2 << " differs: \"" << rows[i][0]
                << (pairs ? "\" / \"" + rows[i][1] : std::string()) << "\" -> " << show(e.input_ids) << "\n";
  }
  std::ostringstream hex;
  hex << std::hex;
  hex.width(16);
  hex.fill('0');
  hex << total;
  std::cout << "parity[" << name << "] " << file << ": " << rows.size() << " lines, " << mismatches
            << " mismatches, total " << hex.str() << " (golden " << total_hex << ")\n";
  CHECK(hex.str() == total_hex);
  return mismatches;
}

// `file`: another tokenizer.json that must give NAME's goldens.
void check_glue(const std::string& name, const std::string& file = {}) {
  auto tok = load_tokenizer({file.empty() ? golden_dir() + name + ".tokenizer.json" : file});
  std::ifstream hashes(golden_dir() + name + ".hashes.txt");
  REQUIRE(hashes.good());
  size_t mismatches = 0;
  for (int file = 0; file < 4; ++file) mismatches += check_glue_file(*tok, hashes, name);
  CHECK(mismatches == 0);
}

void check_edge_cases(const std::string& name, const std::string& file = {}) {
  auto tok = load_tokenizer({file.empty() ? golden_dir() + name + ".tokenizer.json" : file});
  std::ifstream in(golden_dir() + name + ".edge_cases.jsonl");
  REQUIRE(in.good());
  size_t lines = 0, mismatches = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    auto j = nlohmann::json::parse(line);
    std::vector<std::string> row = {j["text_a"].get<std::string>()};
    if (!j["text_b"].is_null()) row.push_back(j["text_b"].get<std::string>());
    Encoding e = encode_row(*tok, row, j["max_length"].get<int>());
    auto want_ids = j["input_ids"].get<std::vector<int32_t>>();
    if (e.input_ids == want_ids && mask_of(e) == j["attention_mask"].get<std::vector<int32_t>>() &&
        e.token_type_ids == j["token_type_ids"].get<std::vector<int32_t>>())
      continue;
    if (++mismatches <= 5)
      std::cout << name << " edge case " << j["text_a"].dump() << " / " << j["text_b"].dump() << " max_length "
                << j["max_length"] << ":\n  got  " << show(e.input_ids) << " types " << show(e.token_type_ids)
                << "\n  want " << show(want_ids) << " types " << j["token_type_ids"].dump() << "\n";
  }
  std::cout << "parity[" << name << "] edge cases: " << lines << " lines, " << mismatches << " mismatches\n";
  CHECK(lines == 22 * 2 + 6 * 4);
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("byte-level BPE with RoBERTa's post-processor matches tokenizers on GLUE", "[tokenizer][tokenizer_json]") {
  check_glue("roberta_bpe");
}

TEST_CASE("byte-level BPE with RoBERTa's post-processor matches tokenizers on the edge cases",
          "[tokenizer][tokenizer_json]") {
  check_edge_cases("roberta_bpe");
}

TEST_CASE("a Split with GPT-2's pattern before a regex-free ByteLevel tokenizes as ByteLevel alone",
          "[tokenizer][tokenizer_json]") {
  nlohmann::json j = nlohmann::json::parse(test::read_text(golden_dir() + "roberta_bpe.tokenizer.json"));
  const std::string gpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"}, {"pattern", {{"Regex", gpt2}}}, {"behavior", "Isolated"}, {"invert", false}},
                          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
  const std::string file = test::tmp_dir("tokjson_gpt2_split") + "/tokenizer.json";
  std::ofstream(file) << j.dump();
  check_glue("roberta_bpe", file);
  check_edge_cases("roberta_bpe", file);
}

TEST_CASE("Unigram with Metaspace and DeBERTa-v3's template matches tokenizers on GLUE",
          "[tokenizer][tokenizer_json]") {
  check_glue("deberta_unigram");
}

TEST_CASE("Unigram with Metaspace and DeBERTa-v3's template matches tokenizers on the edge cases",
          "[tokenizer][tokenizer_json]") {
  check_edge_cases("deberta_unigram");
}

TEST_CASE("SentencePiece Unigram with its charsmap as DeBERTa-v3's matches tokenizers on GLUE",
          "[tokenizer][tokenizer_json]") {
  check_glue("deberta_spm");
}

TEST_CASE("SentencePiece Unigram with its charsmap as DeBERTa-v3's matches tokenizers on the edge cases",
          "[tokenizer][tokenizer_json]") {
  check_edge_cases("deberta_spm");
}

TEST_CASE("SentencePiece Unigram as XLM-R's matches tokenizers on GLUE", "[tokenizer][tokenizer_json]") {
  check_glue("xlmr_spm");
}

TEST_CASE("SentencePiece Unigram as XLM-R's matches tokenizers on the edge cases", "[tokenizer][tokenizer_json]") {
  check_edge_cases("xlmr_spm");
}

TEST_CASE("WordPiece behind NFD, Lowercase, StripAccents and Whitespace matches tokenizers on GLUE",
          "[tokenizer][tokenizer_json]") {
  check_glue("wordpiece_seq");
}

TEST_CASE("WordPiece behind NFD, Lowercase, StripAccents and Whitespace matches tokenizers on the edge cases",
          "[tokenizer][tokenizer_json]") {
  check_edge_cases("wordpiece_seq");
}

TEST_CASE("BPE with byte_fallback laid out as Llama 2's matches tokenizers on GLUE", "[tokenizer][tokenizer_json]") {
  check_glue("llama_bpe");
}

TEST_CASE("BPE with byte_fallback laid out as Llama 2's matches tokenizers on the edge cases",
          "[tokenizer][tokenizer_json]") {
  check_edge_cases("llama_bpe");
}

TEST_CASE("byte-level BPE as ModernBERT's matches tokenizers on GLUE", "[tokenizer][tokenizer_json]") {
  check_glue("modernbert_bpe");
}

TEST_CASE("byte-level BPE as ModernBERT's matches tokenizers on the edge cases", "[tokenizer][tokenizer_json]") {
  check_edge_cases("modernbert_bpe");
}

namespace {

// A folder holding only deberta_spm's SentencePiece model (deberta_spm.spm.model,
// scripts/golden/spm_model_golden.py), as DeBERTa-v3's folder on the Hub has it.
std::string spm_only_folder() {
  const std::string dir = test::tmp_dir("tokjson_spm_only");
  std::ofstream(dir + "/spm.model", std::ios::binary) << test::read_text(golden_dir() + "deberta_spm.spm.model");
  return dir;
}

}  // namespace

TEST_CASE("a folder with only DeBERTa-v3's spm.model tokenizes as its converted tokenizer.json on GLUE",
          "[tokenizer][tokenizer_json][spm_model]") {
  check_glue("deberta_spm", spm_only_folder());
}

TEST_CASE("a folder with only DeBERTa-v3's spm.model tokenizes as its converted tokenizer.json on the edge cases",
          "[tokenizer][tokenizer_json][spm_model]") {
  check_edge_cases("deberta_spm", spm_only_folder());
}
