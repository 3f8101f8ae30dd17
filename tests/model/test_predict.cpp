// The predict command body and the export folder, against the golden logits.
#include "catch.h"

#include "golden.h"
#include "shared.h"
#include "model/export.h"
#include "model/predict.h"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace runner;
using runner::test::golden;

namespace {

// model_parity/batch.json's four MRPC pairs as predict input lines.
std::string parity_input() {
  auto batch = test::read_json(golden("model_parity/batch.json"));
  std::string lines;
  for (size_t i = 0; i < 4; ++i)
    lines += nlohmann::json{{"id", i}, {"text_a", batch["text_a"][i]}, {"text_b", batch["text_b"][i]}}
                 .dump() + "\n";
  return lines;
}

// Runs predict and checks every line against expected.json's fp32 logits.
void check_predictions(const PredictCommandOptions& options) {
  std::istringstream in(parity_input());
  std::ostringstream out, err;
  REQUIRE(run_predict_command(options, in, out, err) == 0);
  auto expected = test::read_json(golden("model_parity/expected.json"));
  std::istringstream lines(out.str());
  std::string line;
  size_t n = 0;
  for (; std::getline(lines, line); ++n) {
    auto j = nlohmann::json::parse(line);
    REQUIRE(j.at("id") == n);
    for (size_t k = 0; k < 2; ++k)
      CHECK(j.at("logits")[k].get<double>() ==
            Approx(expected.at("logits")[n][k].get<double>()).margin(1e-5));
    CHECK(j.at("label") == expected.at("predictions")[n]);
    CHECK(j.at("label_name") == "LABEL_" + std::to_string(j.at("label").get<int>()));
  }
  CHECK(n == 4);
}

}  // namespace

TEST_CASE("predict: tiny_bert logits equal the golden logits, batched", "[model]") {
  PredictCommandOptions options;
  options.model = golden("tiny_bert");
  options.tokenizer = test::shared_dir() + "/models/bert-base-uncased";
  options.batch_size = 3;  // two batches, padded to different lengths
  check_predictions(options);
}

TEST_CASE("predict: a bad input line is exit code 2 naming the line", "[model]") {
  PredictCommandOptions options;
  options.model = golden("tiny_bert");
  options.tokenizer = test::shared_dir() + "/models/bert-base-uncased";
  std::istringstream in("{\"text_a\": \"fine\"}\n{\"text_b\": \"no text_a\"}\n");
  std::ostringstream out, err;
  CHECK(run_predict_command(options, in, out, err) == 2);
  CHECK(err.str().find("<stdin>:2") != std::string::npos);  // no --input: standard input
  CHECK(err.str().find("text_a") != std::string::npos);
}

TEST_CASE("predict: a tokenizer larger than the model's embedding table is refused, naming both sizes", "[model]") {
  // tiny_roberta has 1000 embedding rows; the golden byte-level BPE tokenizer has 3000 tokens.
  PredictCommandOptions options;
  options.model = test::source_dir() + "/tests/model/golden/tiny_roberta";
  options.tokenizer = test::source_dir() + "/tests/tokenizer/golden/roberta_bpe.tokenizer.json";
  options.max_length = 64;
  std::istringstream in("{\"text_a\": \"a fine film\"}\n");
  std::ostringstream out, err;
  CHECK(run_predict_command(options, in, out, err) == 2);
  CHECK(out.str().empty());
  CHECK_THAT(err.str(), Catch::Contains("3000 tokens") && Catch::Contains("1000 rows") && Catch::Contains("--tokenizer"));
}

TEST_CASE("export: a Hugging Face folder with tokenizer files predicts the same", "[model]") {
  auto model = test::load_tiny_bert(golden("tiny_bert/model.safetensors"));
  std::string dir = test::tmp_dir("export") + "/hf";
  auto copied = export_hf_folder(*model, dir, test::shared_dir() + "/models/bert-base-uncased");
  CHECK(copied == std::vector<std::string>{"vocab.txt", "tokenizer.json", "tokenizer_config.json"});
  for (const char* f : {"config.json", "model.safetensors", "vocab.txt", "tokenizer.json"})
    CHECK(std::filesystem::is_regular_file(std::filesystem::path(dir) / f));
  PredictCommandOptions options;
  options.model = dir;  // the tokenizer comes from the exported folder itself
  check_predictions(options);
}

namespace {

std::string csv_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The four parity pairs written as `format` to dir/pairs.<ext>: CSV (quoted,
// header sentence1,sentence2), TSV with that header or none, or JSONL with the
// keys s1 and s2.
std::string write_pairs(const std::string& dir, const std::string& format, bool header) {
  auto batch = test::read_json(golden("model_parity/batch.json"));
  std::string path = dir + "/pairs." + (format == "jsonl" ? "jsonl" : format);
  std::ofstream f(path, std::ios::binary);
  if (header && format == "csv") f << "sentence1,sentence2\n";
  if (header && format == "tsv") f << "sentence1\tsentence2\n";
  for (size_t i = 0; i < 4; ++i) {
    std::string a = batch["text_a"][i], b = batch["text_b"][i];
    if (format == "csv") f << csv_quoted(a) << "," << csv_quoted(b) << "\n";
    else if (format == "tsv") f << a << "\t" << b << "\n";
    else f << nlohmann::json{{"s1", a}, {"s2", b}}.dump() << "\n";
  }
  return path;
}

// Each output line carries its row and the golden logits of that pair.
void check_table_predictions(const PredictCommandOptions& options) {
  std::istringstream none;
  std::ostringstream out, err;
  INFO(err.str());
  REQUIRE(run_predict_command(options, none, out, err) == 0);
  auto expected = test::read_json(golden("model_parity/expected.json"));
  auto batch = test::read_json(golden("model_parity/batch.json"));
  std::istringstream lines(out.str());
  std::string line;
  size_t n = 0;
  for (; std::getline(lines, line); ++n) {
    auto j = nlohmann::json::parse(line);
    REQUIRE(j.at("row") == n);
    CHECK(j.at("text_b") == batch["text_b"][n]);
    // The same inputs as the JSONL golden check: the same 1e-5 margin.
    for (size_t k = 0; k < 2; ++k)
      CHECK(j.at("logits")[k].get<double>() == Approx(expected.at("logits")[n][k].get<double>()).margin(1e-5));
  }
  CHECK(n == 4);
}

}  // namespace

TEST_CASE("predict: CSV, TSV (with and without a header) and mapped JSONL read as training reads them", "[model]") {
  std::string dir = test::tmp_dir("predict_tables");
  PredictCommandOptions options;
  options.model = golden("tiny_bert");
  options.tokenizer = test::shared_dir() + "/models/bert-base-uncased";
  options.batch_size = 3;
  options.columns = {{"text_a", "sentence1"}, {"text_b", "sentence2"}};
  for (const char* format : {"csv", "tsv"}) {
    INFO(format);
    options.format = format;
    options.input_name = write_pairs(dir, format, true);
    check_table_predictions(options);
  }
  options.format = "tsv";
  options.header = false;
  options.columns = {{"text_a", "0"}, {"text_b", "1"}};
  std::filesystem::create_directories(dir + "/bare");
  options.input_name = write_pairs(dir + "/bare", "tsv", false);
  check_table_predictions(options);
  options.format = "jsonl";
  options.header = true;
  options.columns = {{"text_a", "s1"}, {"text_b", "s2"}};
  options.input_name = write_pairs(dir, "jsonl", true);
  check_table_predictions(options);
}

TEST_CASE("predict: a CSV row that is not the header's width is exit code 2 naming its line", "[model]") {
  std::string dir = test::tmp_dir("predict_bad_csv");
  std::ofstream(dir + "/in.csv") << "text_a,text_b\nfine,pair\nthree,fields,here\n";
  PredictCommandOptions options;
  options.model = golden("tiny_bert");
  options.tokenizer = test::shared_dir() + "/models/bert-base-uncased";
  options.format = "csv";
  options.input_name = dir + "/in.csv";
  std::istringstream none;
  std::ostringstream out, err;
  CHECK(run_predict_command(options, none, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("in.csv:3"));
}
