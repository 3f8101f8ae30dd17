// Regression and multi-label datasets: float labels and lists of labels read
// from TSV, CSV and JSONL, the token cache that carries them, and the rows
// refused with the fix named.
#include "catch.h"

#include "data/dataset.h"
#include "data/token_cache.h"
#include "registry/registry.h"
#include "shared.h"
#include "tokenizer/wordpiece_loader.h"
#include "util/diagnostic.h"

#include <cstring>
#include <fstream>

using namespace runner;

namespace {

std::shared_ptr<const Dataset> make(const std::string& name, nlohmann::json options) {
  return registry().factory<DatasetFactory>(Kind::Dataset, name)(options);
}

void write_file(const std::string& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
}

std::string load_error(const Dataset& d, const std::string& split) {
  try {
    d.load_split(split);
  } catch (const InputError& e) {
    return e.diagnostic().format();
  }
  return {};
}

nlohmann::json stsb_options(const std::string& dir) {
  return {{"dir", dir}, {"num_labels", 1},
          {"columns", {{"text_a", "sentence1"}, {"text_b", "sentence2"}, {"label", "score"}}}};
}

}  // namespace

TEST_CASE("a TSV with a float score column and num_labels = 1 is a regression", "[data][problem_types]") {
  std::string dir = test::tmp_dir("data_stsb_like");
  write_file(dir, "train.tsv", "sentence1\tsentence2\tscore\na cat\ta dog\t3.54\nred\tblue\t0\nx\ty\t-1.25e1\n");
  auto d = make("tsv", stsb_options(dir));
  CHECK(d->info().problem_type == ProblemType::Regression);
  CHECK(target_width(d->info()) == 1);
  SplitData s = d->load_split("train");
  REQUIRE(s.examples.size() == 3);
  CHECK(s.target_width == 1);
  CHECK(s.examples[0].targets == std::vector<float>{3.54f});
  CHECK(s.examples[1].targets == std::vector<float>{0.0f});
  CHECK(s.examples[2].targets == std::vector<float>{-12.5f});
}

TEST_CASE("a regression label that is not a number names the labels map and num_labels", "[data][problem_types]") {
  std::string dir = test::tmp_dir("data_stsb_word");
  write_file(dir, "train.tsv", "sentence1\tsentence2\tscore\na\tb\t2.5\nc\td\tneg\n");
  std::string e = load_error(*make("tsv", stsb_options(dir)), "train");
  CHECK_THAT(e, Catch::Contains("train.tsv:3") && Catch::Contains("label \"neg\" is not a number") &&
                    Catch::Contains("data.num_labels") && Catch::Contains("data.labels"));
  // on_bad_row = "skip" leaves the row out instead.
  nlohmann::json o = stsb_options(dir);
  o["on_bad_row"] = "skip";
  CHECK(make("tsv", o)->load_split("train").examples.size() == 1);
}

TEST_CASE("problem_type = regression with num_labels > 1 is refused", "[data][problem_types]") {
  nlohmann::json o = {{"dir", "/nonexistent"}, {"num_labels", 3}, {"problem_type", "regression"}};
  CHECK_THROWS_WITH(make("tsv", o), Catch::Contains("set num_labels = 1"));
}

TEST_CASE("multi-label JSONL reads a list of label names or ids", "[data][problem_types]") {
  std::string dir = test::tmp_dir("data_multilabel_jsonl");
  write_file(dir, "train.jsonl",
             "{\"text\": \"great food, high price\", \"labels\": [\"food\", \"price\"]}\n"
             "{\"text\": \"rude staff\", \"labels\": [\"staff\"]}\n"
             "{\"text\": \"nothing to say\", \"labels\": []}\n"
             "{\"text\": \"by id\", \"labels\": [0, 2]}\n");
  nlohmann::json o = {{"dir", dir}, {"problem_type", "multi_label_classification"},
                      {"labels", {{"food", 0}, {"price", 1}, {"staff", 2}}}, {"num_labels", 3},
                      {"columns", {{"text_a", "text"}, {"label", "labels"}}}};
  auto d = make("jsonl", o);
  CHECK(d->info().problem_type == ProblemType::MultiLabel);
  SplitData s = d->load_split("train");
  REQUIRE(s.examples.size() == 4);
  CHECK(s.target_width == 3);
  CHECK(s.examples[0].targets == std::vector<float>{1, 1, 0});
  CHECK(s.examples[1].targets == std::vector<float>{0, 0, 1});
  CHECK(s.examples[2].targets == std::vector<float>{0, 0, 0});
  CHECK(s.examples[3].targets == std::vector<float>{1, 0, 1});
}

TEST_CASE("multi-label CSV reads a delimited column; the delimiter is data.label_delimiter", "[data][problem_types]") {
  std::string dir = test::tmp_dir("data_multilabel_csv");
  write_file(dir, "train.csv", "text,labels\nsoup,food\nsoup and bill,food|price\nnone,\n");
  write_file(dir, "dev.csv", "text,labels\nsoup and bill,\"food, price\"\n");
  nlohmann::json o = {{"dir", dir}, {"problem_type", "multi_label_classification"},
                      {"labels", {{"food", 0}, {"price", 1}}},
                      {"columns", {{"text_a", "text"}, {"label", "labels"}}}};
  SplitData s = make("csv", o)->load_split("train");
  REQUIRE(s.examples.size() == 3);
  CHECK(s.examples[1].targets == std::vector<float>{1, 1});
  CHECK(s.examples[2].targets == std::vector<float>{0, 0});
  o["label_delimiter"] = ",";
  CHECK(make("csv", o)->load_split("dev").examples[0].targets == std::vector<float>{1, 1});
  // A label the map does not know names the map.
  write_file(dir, "train.csv", "text,labels\nsoup,food|staff\n");
  o["label_delimiter"] = "|";
  CHECK_THAT(load_error(*make("csv", o), "train"),
             Catch::Contains("train.csv:2") && Catch::Contains("label \"staff\" is not one of") &&
                 Catch::Contains("data.labels"));
}

TEST_CASE("a JSONL list of labels on a single-label dataset is refused", "[data][problem_types]") {
  std::string dir = test::tmp_dir("data_list_single");
  write_file(dir, "train.jsonl", "{\"text_a\": \"x\", \"label\": [\"a\"]}\n");
  nlohmann::json o = {{"dir", dir}, {"labels", {{"a", 0}, {"b", 1}}}};
  CHECK_THAT(load_error(*make("jsonl", o), "train"),
             Catch::Contains("is not one of") && Catch::Contains("problem_type = \"multi_label_classification\""));
}

TEST_CASE("the token cache carries float targets and rebuilds a cache of the old format", "[data][problem_types]") {
  std::string dir = test::tmp_dir("data_targets_cache");
  write_file(dir, "train.tsv", "sentence1\tsentence2\tscore\na cat\ta dog\t3.5\nred\tblue\t0.25\n");
  auto d = make("tsv", stsb_options(dir));
  auto tok = load_wordpiece({test::shared_dir() + "/models/bert-base-uncased"});
  TokenCacheOptions cache;
  cache.dir = dir + "/cache";
  std::vector<std::string> warnings;
  cache.warn = [&](const std::string& m) { warnings.push_back(m); };
  PreparedSplit first = prepare_split(*d, "train", *tok, EncodeOptions{}, cache);
  CHECK_FALSE(first.from_cache);
  CHECK(first.tokens.targets == std::vector<float>{3.5f, 0.25f});
  PreparedSplit again = prepare_split(*d, "train", *tok, EncodeOptions{}, cache);
  CHECK(again.from_cache);
  CHECK(again.tokens.target_width == 1);
  CHECK(again.tokens.targets == first.tokens.targets);
  // A file of format version 1 (no targets) is rebuilt, not misread.
  std::string bytes = test::read_text(first.cache_file);
  uint32_t old_version = 1;
  std::memcpy(bytes.data() + 8, &old_version, sizeof old_version);
  std::ofstream(first.cache_file, std::ios::binary) << bytes;
  PreparedSplit rebuilt = prepare_split(*d, "train", *tok, EncodeOptions{}, cache);
  CHECK_FALSE(rebuilt.from_cache);
  CHECK(rebuilt.tokens.targets == first.tokens.targets);
  REQUIRE(warnings.size() == 1);
}
