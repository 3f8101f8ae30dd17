// `validate` refuses what a run would refuse for its data or its metrics, each
// with its place and fix and exit 2, and a run of such a recipe stops before a
// run directory exists. What is only a default (num_labels beside a labels
// map, the main metric beside data.metrics) follows the recipe instead.
#include "catch.h"

#include "shared.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::CommandResult;
using runner::test::run_command;
using runner::test::runner_exe;

namespace {

const char* kBinaryCsv = "text_a,label\na good film,pos\na bad film,neg\nfine,pos\nawful,neg\n";
const char* kThreeClassCsv = "text_a,label\ngood,pos\nbad,neg\nso so,mid\nfine,pos\n";
const char* kIdCsv = "text_a,label\ngood,1\nbad,0\nso so,2\nfine,1\n";

struct DataCase {
  std::string dir;
  std::string recipe() const { return dir + "/r.toml"; }
};

// A csv dataset with train.csv (and dev.csv unless `dev` is empty) and a recipe
// whose [data] section ends with `data_lines` and whose [train] section is `train_lines`.
DataCase data_case(const std::string& name, const std::string& train, const std::string& dev,
                   const std::string& data_lines, const std::string& train_lines = "") {
  DataCase c{runner::test::tmp_dir(name)};
  fs::create_directories(c.dir + "/data");
  std::ofstream(c.dir + "/data/train.csv") << train;
  if (!dev.empty()) std::ofstream(c.dir + "/data/dev.csv") << dev;
  std::ofstream(c.recipe()) << "[run]\nname = \"refusals\"\noutput_dir = \"" << c.dir << "/runs\"\n"
                            << "[data]\ndataset = \"csv\"\ndir = \"" << c.dir << "/data\"\nmax_length = 16\n"
                            << "cache_dir = \"" << c.dir << "/cache\"\n"
                            << data_lines << "[model]\npreset = \"bert-tiny\"\n[train]\nmax_steps = 1\n"
                            << train_lines;
  return c;
}

CommandResult validate(const DataCase& c) { return run_command(runner_exe() + " validate " + c.recipe()); }

void check_refused(const CommandResult& r) {
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("valid\n") == std::string::npos);
  CHECK(r.out.find("frame #") == std::string::npos);
}

}  // namespace

TEST_CASE("validate refuses an unknown metric, listing those of the problem type", "[cli][data-refusals]") {
  DataCase c = data_case("refuse_unknown_metric", kIdCsv, kIdCsv, "num_labels = 3\nmetrics = [\"accuracy\", \"macro_f2\"]\n");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("r.toml:10:") && Catch::Contains("data.metrics: unknown metric \"macro_f2\"") &&
                        Catch::Contains("the metrics of single_label_classification: accuracy, f1, macro_f1, mcc, "
                                        "micro_f1, weighted_f1") &&
                        Catch::Contains("did you mean \"macro_f1\"?"));
  // The run refuses it the same way before its first step, leaving no run directory.
  CommandResult run = run_command(runner_exe() + " run " + c.recipe());
  check_refused(run);
  CHECK_THAT(run.out, Catch::Contains("unknown metric \"macro_f2\""));
  CHECK_FALSE(fs::exists(c.dir + "/runs"));
}

TEST_CASE("validate refuses a metric_for_best that the evaluation does not compute", "[cli][data-refusals]") {
  DataCase c = data_case("refuse_best_not_computed", kIdCsv, kIdCsv, "num_labels = 3\n",
                         "metric_for_best = \"eval.macro_f1\"\n");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("r.toml:14:") &&
                        Catch::Contains("train.metric_for_best: metric_for_best = \"eval.macro_f1\" is not computed: "
                                        "the evaluation gives eval.loss, eval.accuracy") &&
                        Catch::Contains("add \"macro_f1\" to data.metrics"));
  // Listed in data.metrics, the same recipe is valid.
  DataCase fixed = data_case("refuse_best_computed", kIdCsv, kIdCsv,
                             "num_labels = 3\nmetrics = [\"accuracy\", \"macro_f1\"]\n",
                             "metric_for_best = \"eval.macro_f1\"\n");
  CommandResult ok = validate(fixed);
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("validate refuses a metric of another problem type", "[cli][data-refusals]") {
  DataCase c = data_case("refuse_unfit_metric", kIdCsv, kIdCsv, "num_labels = 3\nmetrics = [\"pearson\"]\n");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("metric \"pearson\" is not defined for single_label_classification") &&
                        Catch::Contains("macro_f1"));
}

TEST_CASE("validate refuses the F1 of class 1 on three classes, naming the averages", "[cli][data-refusals]") {
  DataCase c = data_case("refuse_f1_three", kThreeClassCsv, kThreeClassCsv,
                         "labels = { neg = 0, mid = 1, pos = 2 }\nmetrics = [\"accuracy\", \"f1\"]\n");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("metric \"f1\" is defined for at most 2 classes, but this dataset has 3") &&
                        Catch::Contains("use macro_f1, micro_f1 or weighted_f1"));
}

TEST_CASE("num_labels left out is taken from the labels map; one that disagrees is refused",
          "[cli][data-refusals]") {
  DataCase c = data_case("labels_map_classes", kThreeClassCsv, kThreeClassCsv,
                         "labels = { neg = 0, mid = 1, pos = 2 }\n");
  CommandResult ok = validate(c);
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
  CommandResult printed = run_command(runner_exe() + " print-config " + c.recipe());
  CHECK_THAT(printed.out, Catch::Contains("num_labels = 3"));

  DataCase two = data_case("labels_map_disagrees", kThreeClassCsv, kThreeClassCsv,
                           "labels = { neg = 0, mid = 1, pos = 2 }\nnum_labels = 2\n");
  CommandResult r = validate(two);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("r.toml:10:") &&
                        Catch::Contains("data.labels maps \"pos\" to id 2, but num_labels = 2 (ids 0 to 1)") &&
                        Catch::Contains("remove data.num_labels (it is then taken from the labels map: 3) or set "
                                        "num_labels = 3"));
  DataCase four = data_case("labels_map_short", kThreeClassCsv, kThreeClassCsv,
                            "labels = { neg = 0, mid = 1, pos = 2 }\nnum_labels = 4\n");
  CommandResult more = validate(four);
  check_refused(more);
  CHECK_THAT(more.out, Catch::Contains("class 3 has no label text"));
}

TEST_CASE("validate refuses a missing split file, naming the split, the file and data.files",
          "[cli][data-refusals]") {
  DataCase c = data_case("refuse_missing_dev", kIdCsv, "", "num_labels = 3\n");
  std::ofstream(c.dir + "/data/validation.csv") << kIdCsv;
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("data.eval_split: the dev split's file dev.csv is not in " + c.dir + "/data") &&
                        Catch::Contains("validation.csv") && Catch::Contains("files = { dev = \"...\" }"));
  CommandResult run = run_command(runner_exe() + " run " + c.recipe());
  check_refused(run);
  CHECK_FALSE(fs::exists(c.dir + "/runs"));
  // Mapped through data.files, the same folder is valid.
  std::ofstream(c.recipe(), std::ios::app) << "[data.files]\ndev = \"validation.csv\"\n";
  CommandResult ok = validate(c);
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("text labels without a labels map are refused with the map that fits them", "[cli][data-refusals]") {
  DataCase c = data_case("refuse_text_labels", kBinaryCsv, kBinaryCsv, "");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("data.labels: the train split's labels are text (\"neg\", \"pos\")") &&
                        Catch::Contains("add `labels = { neg = 0, pos = 1 }` to [data]"));
  // The map it names makes the recipe valid.
  DataCase fixed = data_case("text_labels_mapped", kBinaryCsv, kBinaryCsv, "labels = { neg = 0, pos = 1 }\n");
  CommandResult ok = validate(fixed);
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("class ids past num_labels are refused with the num_labels that fits", "[cli][data-refusals]") {
  DataCase c = data_case("refuse_ids_past", kIdCsv, kIdCsv, "");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("data.num_labels: the train split has label \"2\", but num_labels = 2") &&
                        Catch::Contains("set num_labels = 3"));
}

TEST_CASE("the main metric left out is the first of data.metrics", "[cli][data-refusals]") {
  DataCase c = data_case("main_metric_first", kIdCsv, kIdCsv, "num_labels = 3\nmetrics = [\"macro_f1\", \"mcc\"]\n");
  CommandResult ok = validate(c);
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(run_command(runner_exe() + " print-config " + c.recipe()).out,
             Catch::Contains("main_metric = \"macro_f1\""));
  // Named and not computed, it is refused.
  DataCase named = data_case("main_metric_absent", kIdCsv, kIdCsv,
                             "num_labels = 3\nmetrics = [\"macro_f1\"]\nmain_metric = \"mcc\"\n");
  CommandResult r = validate(named);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("main_metric = \"mcc\" picks the best checkpoint, but data.metrics does not "
                                    "compute it"));
}

TEST_CASE("numeric labels that are no class ids are refused as regression targets, not as text",
          "[cli][data-refusals]") {
  DataCase c = data_case("refuse_scores", "text_a,label\ngood,3.54\nbad,0.5\nfine,4\n",
                         "text_a,label\nok,2.25\n", "num_labels = 3\n");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("data.labels: the train split's labels are numbers that are no class ids "
                                    "(\"0.5\", \"3.54\")") &&
                        Catch::Contains("regression targets") && Catch::Contains("set num_labels = 1"));
  CHECK(r.out.find("add `labels") == std::string::npos);  // no labels map of numbers is offered
}

TEST_CASE("float labels with num_labels = 1 are a regression; a word among them is refused", "[cli][data-refusals]") {
  DataCase ok = data_case("valid_regression", "text_a,label\ngood,3.54\nbad,0.5\nfine,4\n",
                          "text_a,label\nok,2.25\n", "num_labels = 1\n");
  CommandResult valid = validate(ok);
  INFO(valid.out);
  CHECK(valid.exit_code == 0);
  DataCase word = data_case("refuse_regression_word", "text_a,label\ngood,3.54\nbad,neg\n",
                            "text_a,label\nok,2.25\n", "num_labels = 1\n");
  CommandResult r = validate(word);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("labels (\"neg\") are not numbers a regression trains on") &&
                        Catch::Contains("data.num_labels") && Catch::Contains("data.labels"));
}

// 1e308 is a double but no float32, and 1e20's square overflows float32: the run
// would train to a NaN loss and end with nulls; validate and the run refuse it.
TEST_CASE("a regression label whose squared error overflows float32 is refused by validate and the run",
          "[cli][data-refusals]") {
  for (const char* label : {"1e308", "-1e20"}) {
    INFO(label);
    DataCase huge = data_case(std::string("refuse_regression_huge") + (label[0] == '-' ? "_neg" : ""),
                              "text_a,label\ngood,3.54\nbad,0.5\n", std::string("text_a,label\nok,") + label + "\n",
                              "num_labels = 1\n");
    CommandResult r = validate(huge);
    check_refused(r);
    CHECK_THAT(r.out, Catch::Contains(label) && Catch::Contains("1.8e19"));
    CommandResult run = run_command(runner_exe() + " run " + huge.recipe());
    check_refused(run);
    CHECK_FALSE(fs::exists(huge.dir + "/runs"));
  }
  // 1e19 is within: its square, 1e38, is a float32.
  DataCase within = data_case("valid_regression_large", "text_a,label\ngood,1e19\nbad,0.5\n",
                              "text_a,label\nok,2\n", "num_labels = 1\n");
  CommandResult ok = validate(within);
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("multi-label lists validate by their labels; a label the map lacks is refused", "[cli][data-refusals]") {
  const std::string lines = "problem_type = \"multi_label_classification\"\nlabels = { food = 0, price = 1 }\n";
  DataCase ok = data_case("valid_multi_label", "text_a,label\nsoup,food|price\nbill,1\nnone,\n",
                          "text_a,label\nsoup,food\n", lines);
  CommandResult valid = validate(ok);
  INFO(valid.out);
  CHECK(valid.exit_code == 0);
  DataCase bad = data_case("refuse_multi_label", "text_a,label\nsoup,food|staff\n", "text_a,label\nsoup,food\n", lines);
  CommandResult r = validate(bad);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("data.labels does not map: \"staff\""));
}

TEST_CASE("a problem_type that is no problem type is refused with its place and the list, in the file and by --set",
          "[cli][data-refusals]") {
  DataCase c = data_case("refuse_problem_type", kIdCsv, kIdCsv, "num_labels = 3\nproblem_type = \"multilabel\"\n");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("r.toml:10:") && Catch::Contains("data.problem_type") &&
                        Catch::Contains("multi_label_classification") && Catch::Contains("regression") &&
                        Catch::Contains("single_label_classification"));
  CHECK(r.out.find("json.exception") == std::string::npos);
  DataCase plain = data_case("refuse_problem_type_set", kIdCsv, kIdCsv, "num_labels = 3\n");
  CommandResult set = run_command(runner_exe() + " validate " + plain.recipe() +
                                  " --set data.problem_type=token_classification");
  check_refused(set);
  CHECK_THAT(set.out, Catch::Contains("data.problem_type") && Catch::Contains("multi_label_classification"));
  CHECK(set.out.find("json.exception") == std::string::npos);
}

TEST_CASE("validate reads a split's header: a mapped column it lacks is refused before any run directory",
          "[cli][data-refusals]") {
  DataCase c = data_case("refuse_missing_label_column", kIdCsv, kIdCsv,
                         "num_labels = 3\ncolumns = { text_a = \"text_a\", label = \"sentiment\" }\n");
  CommandResult r = validate(c);
  check_refused(r);
  CHECK_THAT(r.out, Catch::Contains("train.csv") && Catch::Contains("the header has no column \"sentiment\"") &&
                        Catch::Contains("data.columns.label"));
  CommandResult run = run_command(runner_exe() + " run " + c.recipe());
  check_refused(run);
  CHECK(run.out.find("run directory:") == std::string::npos);
  CHECK_FALSE(fs::exists(c.dir + "/runs"));
}

TEST_CASE("token classification data: a tag outside the label list and tokens and tags of different lengths are "
          "refused with file and line, by validate and by run",
          "[cli][data-refusals][token_classification]") {
  const std::string dir = runner::test::tmp_dir("refuse_token_tags");
  fs::create_directories(dir + "/conll");
  fs::create_directories(dir + "/jsonl");
  std::ofstream(dir + "/conll/train.conll") << "EU B-ORG\nrejects O\n\nPeter B-PER\nBlackburn I-PER\n";
  std::ofstream(dir + "/conll/dev.conll") << "German B-MISC\ncall O\n";
  std::ofstream(dir + "/jsonl/train.jsonl") << "{\"tokens\": [\"EU\", \"rejects\"], \"tags\": [\"B-ORG\", \"O\"]}\n"
                                            << "{\"tokens\": [\"Peter\", \"Blackburn\"], \"tags\": [\"B-PER\"]}\n";
  std::ofstream(dir + "/jsonl/dev.jsonl") << "{\"tokens\": [\"EU\"], \"tags\": [\"B-ORG\"]}\n";
  auto recipe = [&dir](const std::string& name, const std::string& data_lines) {
    std::ofstream(dir + "/" + name + ".toml") << "[run]\nname = \"refusals\"\noutput_dir = \"" << dir << "/runs\"\n"
                                              << "[data]\n" << data_lines << "max_length = 16\ncache_dir = \"" << dir
                                              << "/cache\"\n[model]\npreset = \"bert-tiny\"\n[train]\nmax_steps = 1\n";
    return dir + "/" + name + ".toml";
  };
  // The dev split's B-MISC is no tag of the train split, whose tags are the label list.
  const std::string outside = recipe("outside", "dataset = \"conll\"\ndir = \"" + dir + "/conll\"\n");
  const std::string mismatch = recipe("mismatch", "dataset = \"token_jsonl\"\ndir = \"" + dir + "/jsonl\"\n");
  for (const std::string& command : {" validate " + outside, " run " + outside}) {
    CommandResult r = run_command(runner_exe() + command);
    check_refused(r);
    CHECK_THAT(r.out, Catch::Contains("dev.conll:1") && Catch::Contains("tag \"B-MISC\" is not in the label list") &&
                          Catch::Contains("B-ORG, B-PER, I-PER, O"));
  }
  for (const std::string& command : {" validate " + mismatch, " run " + mismatch}) {
    CommandResult r = run_command(runner_exe() + command);
    check_refused(r);
    CHECK_THAT(r.out, Catch::Contains("train.jsonl:2") && Catch::Contains("\"tokens\" has 2 entries but \"tags\" has 1"));
  }
  CHECK_FALSE(fs::exists(dir + "/runs"));
  // A label list given in the recipe takes the dev split's tag.
  const std::string listed = recipe("listed", "dataset = \"conll\"\ndir = \"" + dir + "/conll\"\n"
                                    "labels = [\"O\", \"B-ORG\", \"B-PER\", \"I-PER\", \"B-MISC\"]\n");
  CommandResult valid = run_command(runner_exe() + " validate " + listed);
  INFO(valid.out);
  CHECK(valid.exit_code == 0);
}
