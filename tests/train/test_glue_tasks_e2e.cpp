// Every GLUE task by name trains on files in its own layout (made up here, a
// few rows each), evaluates with GLUE's official metrics, and `runner ls`,
// `runner report` and `runner compare` show them; MNLI evaluates its matched
// and mismatched dev sets together, and `runner evaluate` reports both as the
// run recorded them.
#include "glue_files.h"
#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::GlueFixture;
using runner::test::isolated_run_sets;
using runner::test::only_run_dir;
using runner::test::run_summary;
using runner::test::runner_cmd;

namespace {

// bert-tiny on the CPU, 3 steps of 8 examples, one evaluation at the end.
std::string write_recipe(const std::string& dir, const std::string& task, const std::string& data_dir) {
  std::string path = dir + "/" + task + ".toml";
  std::ofstream(path) << "[run]\nname = \"glue_" << task << "\"\nseed = 3\ndevice = \"cpu\"\n"
                      << "[data]\ndataset = \"glue/" << task << "\"\ndir = \"" << data_dir << "\"\n"
                      << "max_length = 16\ntrain_batch_size = 8\neval_batch_size = 8\n"
                      << "[model]\npreset = \"bert-tiny\"\n[optimizer]\nlr = 1e-3\n"
                      << "[train]\nmax_steps = 3\nlog_every = 1\neval_every = 3\n";
  return path;
}

nlohmann::json json_of(const std::string& args) {
  auto r = runner_cmd("", args);
  INFO(args << "\n" << r.out);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out.substr(r.out.find_first_of("[{")));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The run trains, and its final evaluation, ls, report and compare hold each official metric.
void check_task(const GlueFixture& t, const std::string& dir) {
  INFO("glue/" << t.task);
  std::string data = runner::test::write_glue_task(dir + "/data", t.task);
  auto r = runner_cmd("", write_recipe(dir, t.task, data) + isolated_run_sets(dir));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir, "glue_" + t.task);
  nlohmann::json final_eval = run_summary(run).at("final");
  for (const auto& m : t.metrics) {
    INFO(m << " in " << final_eval.dump());
    CHECK(final_eval.at(m).is_number());
  }
  nlohmann::json ls = json_of("ls " + dir + "/runs --json");
  REQUIRE(ls.size() == 1);
  CHECK(ls[0]["best_metric"] == "eval." + t.metrics.front());
  CHECK(ls[0]["best_value"].is_number());
  auto report = runner_cmd("", "report " + run + " --out " + dir + "/report.html");
  INFO(report.out);
  REQUIRE(report.exit_code == 0);
  std::string html = slurp(dir + "/report.html");
  // A classification's report shows its final per-class table and confusion matrix.
  if (t.task != "stsb") CHECK(html.find("<h2>Per class</h2>") != std::string::npos);
  if (t.task == "mnli") CHECK(html.find("per_class_mm") != std::string::npos);
  nlohmann::json compared = json_of("compare " + run + " " + run + " --json");
  for (const auto& m : t.metrics) {
    INFO(m);
    CHECK(html.find(m) != std::string::npos);
    bool listed = false;
    for (const auto& row : compared.at("final")) listed = listed || row.dump().find("\"eval." + m + "\"") != std::string::npos;
    CHECK(listed);
  }
}

}  // namespace

TEST_CASE("each GLUE task by name trains on its own layout and records its official metrics", "[e2e][glue]") {
  for (const auto& t : runner::test::made_up_glue_tasks()) check_task(t, runner::test::tmp_dir("glue_" + t.task));
}

TEST_CASE("MNLI records both dev sets in every evaluation, and evaluate and ls report both", "[e2e][glue]") {
  std::string dir = runner::test::tmp_dir("glue_mnli_both");
  std::string data = runner::test::write_glue_task(dir + "/data", "mnli");
  auto r = runner_cmd("", write_recipe(dir, "mnli", data) + isolated_run_sets(dir));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir, "glue_mnli");
  nlohmann::json final_eval = run_summary(run).at("final");
  // 8 rows in each dev file; the mismatched set's own loss and per-class table.
  CHECK(final_eval.at("examples") == 8);
  CHECK(final_eval.at("examples_mm") == 8);
  CHECK(final_eval.at("loss_mm").is_number());
  CHECK(final_eval.at("per_class_mm").at("support").size() == 3);
  nlohmann::json evaluated = json_of("evaluate " + run + " --json");
  for (const char* key : {"loss", "accuracy", "loss_mm", "accuracy_mm", "examples_mm"}) {
    INFO(key);
    CHECK(evaluated.at(key) == final_eval.at(key));
  }
  nlohmann::json ls = json_of("ls " + dir + "/runs --json");
  CHECK(ls[0]["best_companions"]["eval.accuracy_mm"] == final_eval.at("accuracy_mm"));
  auto table = runner_cmd("", "ls " + dir + "/runs");
  CHECK_THAT(table.out, Catch::Contains("eval.accuracy_mm="));
  // The mismatched set is its own split: named, it is evaluated alone.
  nlohmann::json mm = json_of("evaluate " + run + " --split dev_mismatched --json");
  CHECK(mm.at("accuracy") == final_eval.at("accuracy_mm"));
  CHECK_FALSE(mm.contains("accuracy_mm"));
}

TEST_CASE("evaluate --input scores the dev rows as CSV, TSV or JSONL as the run scored its dev split", "[e2e][glue]") {
  std::string dir = runner::test::tmp_dir("glue_evaluate_input");
  std::string data = runner::test::write_glue_task(dir + "/data", "rte");
  auto r = runner_cmd("", write_recipe(dir, "rte", data) + isolated_run_sets(dir));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir, "glue_rte");
  nlohmann::json final_eval = run_summary(run).at("final");
  // dev.tsv's rows (index, sentence1, sentence2, label) in each format, with the roles' default names.
  std::ifstream dev(data + "/dev.tsv");
  std::string line;
  std::getline(dev, line);
  std::ofstream csv(dir + "/dev.csv"), tsv(dir + "/dev.tsv"), jsonl(dir + "/dev.jsonl");
  csv << "text_a,text_b,label\n";
  tsv << "label\ttext_b\ttext_a\n";  // any order: columns are found by name
  while (std::getline(dev, line)) {
    std::vector<std::string> f;
    for (size_t start = 0, tab;; start = tab + 1) {
      tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
    }
    csv << "\"" << f[1] << "\",\"" << f[2] << "\"," << f[3] << "\n";
    tsv << f[3] << "\t" << f[2] << "\t" << f[1] << "\n";
    jsonl << nlohmann::json{{"text_a", f[1]}, {"text_b", f[2]}, {"label", f[3]}}.dump() << "\n";
  }
  csv.close(), tsv.close(), jsonl.close();
  for (const char* file : {"dev.csv", "dev.tsv", "dev.jsonl"}) {
    INFO(file);
    nlohmann::json got = json_of("evaluate " + run + " --input " + dir + "/" + file + " --json");
    for (const char* key : {"loss", "accuracy", "examples"}) CHECK(got.at(key) == final_eval.at(key));
  }
  // A role mapped to a key the rows lack is refused, naming it.
  auto bad = runner_cmd("", "evaluate " + run + " --input " + dir + "/dev.jsonl --columns text_a=premise");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.out, Catch::Contains("premise"));
  // The text table: precision, recall, F1 and support per class, and the confusion matrix.
  auto text = runner_cmd("", "evaluate " + run);
  CHECK_THAT(text.out, Catch::Contains("per_class:") && Catch::Contains("not_entailment") &&
                           Catch::Contains("confusion (rows: true class, columns: predicted class)"));
}
