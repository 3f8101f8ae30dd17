// GLUE files as distributed and the generic tsv/csv/jsonl datasets, including
// every malformed-row case.
#include "catch.h"

#include "data/dataset.h"
#include "data/data_checks.h"
#include "data/file_dataset.h"
#include "data/table_rows.h"
#include "registry/registry.h"
#include "shared.h"
#include "util/diagnostic.h"

#include <fstream>

using namespace runner;

namespace {

std::shared_ptr<const Dataset> make(const std::string& name, nlohmann::json options) {
  return registry().factory<DatasetFactory>(Kind::Dataset, name)(options);
}

std::string glue_dir(const char* task) { return test::shared_dir() + "/data/glue/" + task; }

std::string write_file(const std::string& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
  return dir + "/" + name;
}

// The InputError message of loading `split`, or "" when it loads.
std::string load_error(const Dataset& d, const std::string& split) {
  try {
    d.load_split(split);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("glue/mrpc reads all three splits with GLUE's row counts", "[data]") {
  auto d = make("glue/mrpc", {{"dir", glue_dir("MRPC")}});
  SplitData train = d->load_split("train");
  SplitData dev = d->load_split("dev");
  SplitData test = d->load_split("test");
  CHECK(train.examples.size() == 3668);
  CHECK(dev.examples.size() == 408);
  CHECK(test.examples.size() == 1725);
  // Label counts from shared/data/README.md.
  long positives = 0;
  for (const auto& e : train.examples) positives += e.label == 1;
  CHECK(positives == 2474);
  CHECK(train.examples[0].text_a.rfind("Amrozi accused his brother", 0) == 0);
  CHECK(train.examples[0].text_b.has_value());
  CHECK(d->info().metrics == std::vector<std::string>{"accuracy", "f1"});
  CHECK(d->info().num_labels == 2);
}

TEST_CASE("glue test splits have no labels", "[data]") {
  auto mrpc = make("glue/mrpc", {{"dir", glue_dir("MRPC")}}) ;
  SplitData test = mrpc->load_split("test");
  CHECK_FALSE(test.has_labels);
  for (const auto& e : test.examples) REQUIRE(e.label == -1);
  CHECK(test.examples.back().id == 1724);
  auto sst = make("glue/sst2", {{"dir", glue_dir("SST-2")}});
  SplitData sst_test = sst->load_split("test");
  CHECK(sst_test.examples.size() == 1821);
  CHECK_FALSE(sst_test.has_labels);
}

TEST_CASE("glue/sst2 keeps the trailing space and counts 67349/872", "[data]") {
  auto d = make("glue/sst2", {{"dir", glue_dir("SST-2")}});
  SplitData dev = d->load_split("dev");
  CHECK(dev.examples.size() == 872);
  CHECK(dev.examples[0].text_a.back() == ' ');
  CHECK_FALSE(dev.examples[0].text_b.has_value());
  CHECK(d->load_split("train").examples.size() == 67349);
  CHECK(d->info().metrics == std::vector<std::string>{"accuracy"});
}

TEST_CASE("a BOM before the header is removed", "[data]") {
  std::string dir = test::tmp_dir("data_bom");
  write_file(dir, "train.tsv", "\xEF\xBB\xBFtext_a\tlabel\nhello\t1\n");
  auto d = make("tsv", {{"dir", dir}});
  SplitData s = d->load_split("train");  // the header's first name must be "text_a", not BOM+text_a
  REQUIRE(s.examples.size() == 1);
  CHECK(s.examples[0].text_a == "hello");
  CHECK(s.examples[0].label == 1);
}

TEST_CASE("a row with the wrong column count names file:line", "[data]") {
  std::string dir = test::tmp_dir("data_columns");
  std::string header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  write_file(dir, "train.tsv", header + "1\t1\t2\ta\tb\n0\t3\t4\tonly four\n");
  auto d = make("glue/mrpc", {{"dir", dir}});
  std::string err = load_error(*d, "train");
  CHECK_THAT(err, Catch::Contains(dir + "/train.tsv:3"));
  CHECK_THAT(err, Catch::Contains("4 fields, expected 5"));
}

TEST_CASE("a bad label names file:line", "[data]") {
  std::string dir = test::tmp_dir("data_label");
  write_file(dir, "dev.tsv", "sentence\tlabel\ngood \t1\nbad \tpositive\n");
  auto d = make("glue/sst2", {{"dir", dir}});
  std::string err = load_error(*d, "dev");
  CHECK_THAT(err, Catch::Contains(dir + "/dev.tsv:3"));
  CHECK_THAT(err, Catch::Contains("label \"positive\" is not an integer in [0, 1]"));
}

TEST_CASE("invalid UTF-8 names file:line", "[data]") {
  std::string dir = test::tmp_dir("data_utf8");
  write_file(dir, "dev.tsv", "sentence\tlabel\nok \t1\nbad \xC3\x28 byte \t0\n");
  auto d = make("glue/sst2", {{"dir", dir}});
  std::string err = load_error(*d, "dev");
  CHECK_THAT(err, Catch::Contains(dir + "/dev.tsv:3"));
  CHECK_THAT(err, Catch::Contains("invalid UTF-8"));
}

TEST_CASE("on_bad_row = skip lists every skipped line", "[data]") {
  std::string dir = test::tmp_dir("data_skip");
  write_file(dir, "dev.tsv", "sentence\tlabel\nok \t1\nbad \t7\ntoo\tmany\tfields\n\xFF\t1\nfine \t0\n");
  auto d = make("glue/sst2", {{"dir", dir}, {"on_bad_row", "skip"}});
  SplitData s = d->load_split("dev");
  REQUIRE(s.examples.size() == 2);
  CHECK(s.examples[1].id == 4);  // data rows keep their file position
  REQUIRE(s.skipped.size() == 3);
  std::string log = describe_skipped(s);
  CHECK_THAT(log, Catch::Contains("skipped 3 malformed rows"));
  CHECK_THAT(log, Catch::Contains("line 3"));
  CHECK_THAT(log, Catch::Contains("line 4"));
  CHECK_THAT(log, Catch::Contains("line 5"));
}

TEST_CASE("csv with quotes and a label map", "[data]") {
  std::string dir = test::tmp_dir("data_csv");
  write_file(dir, "train.csv",
             "review,verdict,extra\n\"He said \"\"hi\"\", then left\",pos,x\nplain text,neg,y\n");
  auto d = make("csv", {{"dir", dir},
                        {"columns", {{"text_a", "review"}, {"label", "verdict"}}},
                        {"labels", {{"neg", 0}, {"pos", 1}}}});
  SplitData s = d->load_split("train");
  REQUIRE(s.examples.size() == 2);
  CHECK(s.examples[0].text_a == "He said \"hi\", then left");
  CHECK(s.examples[0].label == 1);
  CHECK(s.examples[1].label == 0);
  CHECK(d->info().label_names == std::vector<std::string>{"neg", "pos"});
}

TEST_CASE("jsonl pairs, and a line that is not JSON", "[data]") {
  std::string dir = test::tmp_dir("data_jsonl");
  write_file(dir, "train.jsonl",
             "{\"q\": \"first\", \"p\": \"second\", \"y\": 1}\n{\"q\": \"x\", \"p\": \"y\"\n");
  nlohmann::json o = {{"dir", dir}, {"columns", {{"text_a", "q"}, {"text_b", "p"}, {"label", "y"}}}};
  auto d = make("jsonl", o);
  CHECK_THAT(load_error(*d, "train"), Catch::Contains("train.jsonl:2"));
  o["on_bad_row"] = "skip";
  SplitData s = make("jsonl", o)->load_split("train");
  REQUIRE(s.examples.size() == 1);
  CHECK(*s.examples[0].text_b == "second");
  CHECK(s.examples[0].label == 1);
  CHECK(d->info().is_pair);
}

TEST_CASE("validate's label scan reads a split's label texts within its first bytes", "[data]") {
  std::string dir = test::tmp_dir("data_label_scan");
  nlohmann::json o = {{"dir", dir}};
  write_file(dir, "train.csv", "text_a,label\ngood,pos\nbad,neg\nbroken row\nfine,3\n");
  // Every label text as written, a malformed row left out.
  CHECK(split_label_texts("csv", o, "train") == std::set<std::string>{"3", "neg", "pos"});

  // Past kLabelScanBytes, a label is left to the run: the scan stops at a whole line.
  std::string row = "a long enough sentence for a row,1\n";
  std::string text = "text_a,label\n";
  while (text.size() < kLabelScanBytes) text += row;
  write_file(dir, "dev.csv", text + "late,neg\n");
  CHECK(split_label_texts("csv", o, "dev") == std::set<std::string>{"1"});
}

TEST_CASE("a CSV row's field count error says commas; an empty CSV says it is empty", "[data]") {
  std::string dir = test::tmp_dir("data_csv_refusals");
  write_file(dir, "train.csv", "text_a,label\na good film,1,extra\nbad,0\n");
  write_file(dir, "dev.csv", "");
  auto d = make("csv", {{"dir", dir}});
  std::string err = load_error(*d, "train");
  CHECK_THAT(err, Catch::Contains(dir + "/train.csv:2") && Catch::Contains("3 fields, expected 2 separated by commas"));
  err = load_error(*d, "dev");
  CHECK_THAT(err, Catch::Contains(dir + "/dev.csv") && Catch::Contains("the file is empty"));
  CHECK_THAT(err, !Catch::Contains("the header has no column"));
  // A TSV's row still says tabs.
  write_file(dir, "train.tsv", "text_a\tlabel\na\t1\tx\n");
  CHECK_THAT(load_error(*make("tsv", {{"dir", dir}}), "train"), Catch::Contains("separated by tabs"));
}

// A regression label is read the same way by the run and by validate's scan:
// "+2.5" is a number (Python's float() takes it), "0x10" is not.
TEST_CASE("regression labels: a leading plus is a number, hexadecimal is not, for the run and validate", "[data]") {
  CHECK(regression_number("+2.5") == 2.5);
  CHECK(regression_number(" -1e-3 ") == -1e-3);
  CHECK_FALSE(regression_number("0x10"));
  CHECK_FALSE(regression_number("+-1"));
  CHECK_FALSE(regression_number("inf"));
  std::string dir = test::tmp_dir("data_regression_signs");
  write_file(dir, "train.csv", "text_a,label\ngood,+2.5\nbad,0.5\n");
  nlohmann::json data = {{"dataset", "csv"}, {"dir", dir}, {"num_labels", 1}, {"problem_type", "regression"},
                         {"train_split", "train"}, {"eval_split", ""}};
  SplitData s = make("csv", data)->load_split("train");
  REQUIRE(s.examples.size() == 2);
  CHECK(s.examples[0].targets == std::vector<float>{2.5f});
  CHECK(check_split_labels("csv", {{"data", data}}).empty());
  write_file(dir, "train.csv", "text_a,label\ngood,0x10\nbad,0.5\n");
  CHECK_THAT(load_error(*make("csv", data), "train"), Catch::Contains("label \"0x10\" is not a number"));
  Diagnostics diags = check_split_labels("csv", {{"data", data}});
  REQUIRE(diags.size() == 1);
  CHECK_THAT(diags[0].message, Catch::Contains("\"0x10\""));
}
