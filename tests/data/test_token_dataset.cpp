// The token classification datasets ("conll", "token_jsonl") as a run reads
// them: the split tokenized through the token cache carries run_ner.py's
// sub-token labels (scripts/golden/ner_alignment_golden.py wrote them from
// Transformers), the cache gives them back unchanged, a label list taken from
// the train file keys the cache, and batches pad labels with -100.
#include "catch.h"

#include "data/batch.h"
#include "data/token_cache.h"
#include "registry/registry.h"
#include "shared.h"
#include "tokenizer/wordpiece_loader.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace runner;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kLabels = {"O",     "B-PER",  "I-PER", "B-LOC",  "I-LOC",
                                          "B-ORG", "I-ORG", "B-MISC", "I-MISC"};

std::string golden(const std::string& name) { return test::source_dir() + "/tests/data/golden/" + name; }

// The golden lines of one max_length, by sentence.
std::vector<nlohmann::json> golden_rows(int max_length) {
  std::ifstream in(golden("ner_alignment.wordpiece.jsonl"));
  std::vector<nlohmann::json> rows;
  std::string line;
  std::getline(in, line);  // the header: labels, max_lengths, truncated counts
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["max_length"] == max_length) rows.push_back(j);
  }
  return rows;
}

struct Fixture {
  std::string dir, cache_dir;
  std::shared_ptr<const WordPieceTokenizer> tokenizer;
  std::vector<std::string> warnings;

  explicit Fixture(const std::string& name) : dir(test::tmp_dir(name)), cache_dir(test::tmp_dir(name + "_cache")) {
    fs::copy_file(golden("ner_sentences.conll"), dir + "/train.conll");
    fs::copy_file(golden("ner_sentences.conll"), dir + "/dev.conll");
    tokenizer = load_wordpiece({test::shared_dir() + "/models/bert-base-uncased"});
  }
  std::shared_ptr<const Dataset> dataset(nlohmann::json options) const {
    options["dir"] = dir;
    return registry().factory<DatasetFactory>(Kind::Dataset, "conll")(options);
  }
  PreparedSplit prepare(const Dataset& d, int max_length) {
    TokenCacheOptions o;
    o.dir = cache_dir;
    o.dataset_key = "conll";
    o.warn = [this](const std::string& w) { warnings.push_back(w); };
    EncodeOptions enc;
    enc.max_length = max_length;
    return prepare_split(d, "dev", *tokenizer, enc, o);
  }
};

// Example i's token labels.
std::vector<int32_t> labels_of(const TokenizedSplit& s, size_t i) {
  return {s.token_labels.begin() + s.offsets[i], s.token_labels.begin() + s.offsets[i + 1]};
}

void check_golden(const TokenizedSplit& s, int max_length, const char* key) {
  const std::vector<nlohmann::json> rows = golden_rows(max_length);
  REQUIRE(s.size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("sentence " << i << ", max_length " << max_length);
    CHECK(std::vector<int32_t>(s.input_ids.begin() + s.offsets[i], s.input_ids.begin() + s.offsets[i + 1]) ==
          rows[i]["input_ids"].get<std::vector<int32_t>>());
    CHECK(labels_of(s, i) == rows[i][key].get<std::vector<int32_t>>());
  }
}

}  // namespace

TEST_CASE("a conll split carries run_ner.py's sub-token labels, also from the token cache",
          "[data][token_dataset]") {
  Fixture f("token_dataset_golden");
  auto first = f.dataset({{"labels", kLabels}});
  CHECK(first->info().problem_type == ProblemType::TokenClassification);
  CHECK(first->info().label_names == kLabels);
  PreparedSplit made = f.prepare(*first, 16);
  CHECK_FALSE(made.from_cache);
  check_golden(made.tokens, 16, "labels_first");
  CHECK(made.tokens.truncated == 171);  // the golden header's count at max_length 16
  PreparedSplit cached = f.prepare(*first, 16);
  REQUIRE(cached.from_cache);
  check_golden(cached.tokens, 16, "labels_first");
  CHECK(cached.tokens.truncated == 171);
  auto all = f.dataset({{"labels", kLabels}, {"label_all_tokens", true}});
  check_golden(f.prepare(*all, 128).tokens, 128, "labels_all");
  CHECK(f.warnings.empty());
}

TEST_CASE("labels taken from the train file are its tags in byte order, and a new tag there re-tokenizes",
          "[data][token_dataset]") {
  Fixture f("token_dataset_label_list");
  auto d = f.dataset(nlohmann::json::object());
  const std::vector<std::string> sorted = {"B-LOC", "B-MISC", "B-ORG", "B-PER", "I-LOC",
                                           "I-MISC", "I-ORG", "I-PER", "O"};
  REQUIRE(d->info().label_names == sorted);
  PreparedSplit before = f.prepare(*d, 128);
  CHECK(labels_of(before.tokens, 0) == std::vector<int32_t>{-100, 8, 8, -100, 8, 8, 8, 2, 8, 1, 5, -100});
  // "B-AAA" sorts first: every id of the dev split moves up by one.
  std::ofstream(f.dir + "/train.conll", std::ios::app) << "\nextra B-AAA\n";
  auto grown = f.dataset(nlohmann::json::object());
  REQUIRE(grown->info().label_names.front() == "B-AAA");
  PreparedSplit after = f.prepare(*grown, 128);
  CHECK_FALSE(after.from_cache);
  CHECK(labels_of(after.tokens, 0) == std::vector<int32_t>{-100, 9, 9, -100, 9, 9, 9, 3, 9, 2, 6, -100});
}

TEST_CASE("a batch of tagged sentences pads their labels with -100", "[data][token_dataset]") {
  TokenizedSplit s;
  s.add({{101, 7, 102}, {0, 0, 0}}, 0, 0);
  s.add({{101, 7, 8, 9, 102}, {0, 0, 0, 0, 0}}, 0, 1);
  s.token_labels = {-100, 3, -100, -100, 1, -100, 2, -100};
  PaddingOptions padding;
  Batch b = collate(s, {{0, false}, {1, false}}, padding);
  REQUIRE(b.seq_len == 5);
  CHECK(b.token_labels == std::vector<int64_t>{-100, 3, -100, -100, -100, -100, 1, -100, 2, -100});
  CHECK(b.attention_mask == std::vector<int64_t>{1, 1, 1, 0, 0, 1, 1, 1, 1, 1});
}
