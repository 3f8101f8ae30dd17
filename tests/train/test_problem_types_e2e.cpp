// A regression (STS-B's layout: a TSV with a float score and num_labels = 1),
// a multi-label task (JSONL lists of label names) and token classification
// (CoNLL files) through the real `runner`: each trains, is killed with SIGKILL
// and resumed bitwise equal to an uninterrupted run, `runner evaluate` reports
// the run's own final record, export writes the problem type or the token
// head, and predict prints the score or the labels.
#include "util/synced_file.h"

#include "run_files.h"
#include "shared.h"
#include "task_files.h"

#include "catch.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using runner::test::isolated_run_sets;
using runner::test::only_run_dir;
using runner::test::run_summary;
using runner::test::runner_cmd;
using runner::test::task_sentence;
using runner::test::write_aspects;
using runner::test::write_stsb_like;
using runner::test::write_task_recipe;

namespace {

std::vector<nlohmann::json> reproducible_events(const std::string& run_dir) {
  std::vector<nlohmann::json> out;
  for (const char* kind : {"train", "eval"})
    for (auto e : runner::test::events(run_dir, kind)) {
      for (const char* timing : {"samples_per_s", "tokens_per_s", "wall_time", "elapsed_s"}) e.erase(timing);
      out.push_back(e);
    }
  return out;
}

// Trains `recipe` whole and killed at step 7 then resumed; both runs' records,
// and the weights, are equal bit for bit. Returns the resumed run.
std::string train_killed_and_resumed(const std::string& recipe, const std::string& dir) {
  auto ref = runner_cmd("", recipe + isolated_run_sets(dir + "/ref"));
  INFO(ref.out);
  REQUIRE(ref.exit_code == 0);
  std::string ref_run = only_run_dir(dir + "/ref", "task");
  std::string run = runner::test::killed_and_resumed(recipe, dir + "/killed", "task", 7);
  CHECK(run_summary(run)["status"] == "completed");
  CHECK(run_summary(run)["final"] == run_summary(ref_run)["final"]);
  CHECK(runner::read_file_bytes(run + "/final/model.safetensors") ==
        runner::read_file_bytes(ref_run + "/final/model.safetensors"));
  CHECK(reproducible_events(run) == reproducible_events(ref_run));
  return run;
}

nlohmann::json evaluate_json(const std::string& run) {
  auto r = runner_cmd("", "evaluate " + run + " --json");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out.substr(r.out.find('{')));
}

nlohmann::json exported_config(const std::string& run, const std::string& to) {
  auto r = runner_cmd("", "export " + run + " --to " + to);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(runner::read_file_bytes(to + "/config.json"));
}

// The first output line of `runner predict` on one input line.
nlohmann::json predict_line(const std::string& model, const std::string& dir, const std::string& extra = "") {
  std::ofstream(dir + "/in.jsonl") << "{\"text_a\": \"good food cheap price\"}\n";
  auto r = runner_cmd("", "predict --model " + model + " --input " + dir + "/in.jsonl" + extra);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out.substr(r.out.find('{'), r.out.find('\n', r.out.find('{')) - r.out.find('{')));
}

// The first `count` sentences from sentence `first` of the golden CoNLL file
// (GLUE text with seeded random BIO tags), with its -DOCSTART- line.
void write_conll_sentences(const std::string& path, size_t first, size_t count) {
  std::ifstream in(runner::test::source_dir() + "/tests/data/golden/ner_sentences.conll");
  std::ofstream out(path);
  out << "-DOCSTART- O\n\n";
  size_t sentence = 0;
  bool in_sentence = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("-DOCSTART-", 0) == 0) continue;
    if (line.empty()) {
      sentence += in_sentence ? 1 : 0;
      in_sentence = false;
      if (sentence >= first && sentence < first + count) out << "\n";
      continue;
    }
    in_sentence = true;
    if (sentence >= first && sentence < first + count) out << line << "\n";
  }
}

struct TaggedWords {
  std::vector<std::string> words, tags;
};

// The sentences of a CoNLL file the test wrote: word and tag columns.
std::vector<TaggedWords> conll_sentences(const std::string& path) {
  std::ifstream in(path);
  std::vector<TaggedWords> out(1);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("-DOCSTART-", 0) == 0) continue;
    if (line.empty()) {
      if (!out.back().words.empty()) out.emplace_back();
      continue;
    }
    out.back().words.push_back(line.substr(0, line.find(' ')));
    out.back().tags.push_back(line.substr(line.rfind(' ') + 1));
  }
  if (out.back().words.empty()) out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("token classification trains, resumes after kill -9, evaluates and exports its head",
          "[e2e][problem_types][token_classification]") {
  std::string dir = runner::test::tmp_dir("e2e_token_classification");
  fs::create_directories(dir + "/data");
  write_conll_sentences(dir + "/data/train.conll", 0, 48);
  write_conll_sentences(dir + "/data/dev.conll", 48, 16);
  std::string recipe = write_task_recipe(dir, "dataset = \"conll\"\ndir = \"" + dir + "/data\"\n");
  std::string run = train_killed_and_resumed(recipe, dir);
  nlohmann::json final_eval = run_summary(run).at("final");
  for (const char* metric : {"entity_f1", "entity_precision", "entity_recall", "token_accuracy"}) {
    INFO(metric);
    REQUIRE(final_eval.contains(metric));
    CHECK(final_eval[metric].get<double>() >= 0.0);
    CHECK(final_eval[metric].get<double>() <= 1.0);
  }
  CHECK(final_eval.at("examples") == 16);
  // The golden file's tags are BIO over LOC, MISC, ORG and PER.
  CHECK(final_eval.at("per_entity").at("names") == nlohmann::json{"LOC", "MISC", "ORG", "PER"});
  CHECK(run_summary(run)["best"]["metric"] == "eval.entity_f1");
  // Sentences past max_length = 16 are cut and counted.
  bool counted = false;
  for (const auto& e : runner::test::events(run, "data")) counted = counted || e.value("truncated_sentences", 0) > 0;
  CHECK(counted);
  nlohmann::json again = evaluate_json(run);
  for (const char* key : {"loss", "examples", "entity_f1", "entity_precision", "entity_recall", "token_accuracy",
                          "per_entity"}) {
    INFO(key);
    CHECK(again.at(key) == final_eval.at(key));
  }
  // The train split's tags in byte order, as run_ner.py sorts them.
  const nlohmann::json id2label = {{"0", "B-LOC"}, {"1", "B-MISC"}, {"2", "B-ORG"}, {"3", "B-PER"}, {"4", "I-LOC"},
                                   {"5", "I-MISC"}, {"6", "I-ORG"}, {"7", "I-PER"}, {"8", "O"}};
  nlohmann::json final_config = nlohmann::json::parse(runner::read_file_bytes(run + "/final/config.json"));
  CHECK(final_config["architectures"] == nlohmann::json{"BertForTokenClassification"});
  CHECK(final_config["id2label"] == id2label);
  nlohmann::json config = exported_config(run, dir + "/export");
  CHECK(config["architectures"] == nlohmann::json{"BertForTokenClassification"});
  CHECK(config["id2label"] == id2label);
  CHECK_FALSE(config.contains("problem_type"));  // Transformers has none for a token head

  // predict tags the dev sentences' words as evaluation did: the same token accuracy
  // over the words within max_length; the rest have no tag.
  const std::vector<TaggedWords> dev = conll_sentences(dir + "/data/dev.conll");
  {
    std::ofstream lines(dir + "/sentences.jsonl");
    for (const TaggedWords& s : dev) lines << nlohmann::json{{"tokens", s.words}}.dump() << "\n";
  }
  auto predicted = runner_cmd("", "predict --model " + run + " --input " + dir + "/sentences.jsonl");
  INFO(predicted.out);
  REQUIRE(predicted.exit_code == 0);
  std::istringstream out(predicted.out.substr(predicted.out.find('{')));
  long long scored = 0, right = 0, cut = 0;
  for (const TaggedWords& s : dev) {
    std::string text;
    REQUIRE(std::getline(out, text));
    const nlohmann::json line = nlohmann::json::parse(text);
    REQUIRE(line.at("tags").size() == s.words.size());
    for (size_t w = 0; w < s.words.size(); ++w) {
      if (line["tags"][w].is_null()) {
        ++cut;
        continue;
      }
      ++scored;
      right += line["tags"][w] == s.tags[w] ? 1 : 0;
    }
    for (const auto& e : line.at("entities")) {
      const std::string first_tag = line["tags"][e["words"][0].get<size_t>()];
      CHECK(first_tag.substr(2) == e["type"].get<std::string>());
    }
  }
  CHECK(cut > 0);  // max_length = 16 cuts the long sentences, as in evaluation
  // Counts of words: the same division as evaluation's, so equal up to float64 rounding.
  CHECK(static_cast<double>(right) / static_cast<double>(scored) ==
        Approx(final_eval.at("token_accuracy").get<double>()).epsilon(1e-12));

  // A text is split at whitespace; each entity names its characters in it. With
  // every label renamed to a B- tag of its own type, each word is an entity.
  fs::copy(dir + "/export", dir + "/every_word", fs::copy_options::recursive);
  nlohmann::json renamed = nlohmann::json::parse(runner::read_file_bytes(dir + "/every_word/config.json"));
  renamed["label2id"] = nlohmann::json::object();
  for (auto& [id, name] : renamed["id2label"].items()) {
    name = "B-T" + id;
    renamed["label2id"][name.get<std::string>()] = std::stoi(id);
  }
  std::ofstream(dir + "/every_word/config.json", std::ios::trunc) << renamed.dump(2);
  const std::string text = "Dana  Reyes flew from Oslo to Lima";
  const std::vector<std::pair<int, int>> chars = {{0, 4}, {6, 11}, {12, 16}, {17, 21}, {22, 26}, {27, 29}, {30, 34}};
  std::ofstream(dir + "/text.jsonl") << nlohmann::json{{"id", "t1"}, {"text", text}}.dump() << "\n";
  auto tagged = runner_cmd("", "predict --model " + dir + "/every_word --input " + dir + "/text.jsonl");
  INFO(tagged.out);
  REQUIRE(tagged.exit_code == 0);
  const nlohmann::json line = nlohmann::json::parse(tagged.out.substr(tagged.out.find('{')));
  CHECK(line.at("id") == "t1");
  CHECK(line.at("tags").size() == chars.size());
  REQUIRE(line.at("entities").size() == chars.size());
  for (size_t w = 0; w < chars.size(); ++w) {
    const nlohmann::json& e = line["entities"][w];
    INFO(e.dump());
    CHECK(e.at("words") == nlohmann::json{w, w});
    CHECK(e.at("start") == chars[w].first);
    CHECK(e.at("end") == chars[w].second);
    CHECK(e.at("text") == text.substr(chars[w].first, chars[w].second - chars[w].first));
    CHECK(line["tags"][w] == "B-" + e.at("type").get<std::string>());
    CHECK(e.at("score").get<double>() > 0.0);
    CHECK(e.at("score").get<double>() <= 1.0);
  }
  // Flags of another kind of model are refused.
  auto refused = runner_cmd("", "predict --model " + dir + "/export --input " + dir + "/text.jsonl --probabilities");
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.out, Catch::Contains("token classification model"));
}

TEST_CASE("a regression trains, resumes after kill -9, evaluates, exports and predicts", "[e2e][problem_types]") {
  std::string dir = runner::test::tmp_dir("e2e_regression");
  write_stsb_like(dir + "/data");
  std::string recipe = write_task_recipe(dir, runner::test::stsb_like_data_lines(dir + "/data"));
  std::string run = train_killed_and_resumed(recipe, dir);
  nlohmann::json final_eval = run_summary(run).at("final");
  for (const char* metric : {"pearson", "spearman", "mse"}) CHECK(final_eval.contains(metric));
  CHECK(run_summary(run)["best"]["metric"] == "eval.pearson");
  nlohmann::json again = evaluate_json(run);
  for (const char* key : {"loss", "examples", "pearson", "spearman", "mse"}) {
    INFO(key);
    CHECK(again.at(key) == final_eval.at(key));
  }
  nlohmann::json config = exported_config(run, dir + "/export");
  CHECK(config["problem_type"] == "regression");
  CHECK(config["id2label"].size() == 1);  // Transformers' num_labels is the size of id2label
  nlohmann::json line = predict_line(dir + "/export", dir);
  REQUIRE(line.contains("score"));
  CHECK(line["score"] == line["logits"][0]);
  CHECK_FALSE(line.contains("label"));
}

TEST_CASE("a multi-label task trains, resumes after kill -9, evaluates, exports and predicts",
          "[e2e][problem_types]") {
  std::string dir = runner::test::tmp_dir("e2e_multi_label");
  write_aspects(dir + "/data");
  std::string recipe = write_task_recipe(dir, "dataset = \"jsonl\"\ndir = \"" + dir + "/data\"\n"
                                         "problem_type = \"multi_label_classification\"\n"
                                         "labels = { food = 0, price = 1, staff = 2 }\n"
                                         "columns = { text_a = \"text\", label = \"labels\" }\n");
  std::string run = train_killed_and_resumed(recipe, dir);
  nlohmann::json final_eval = run_summary(run).at("final");
  for (const char* metric : {"micro_f1", "macro_f1", "subset_accuracy"}) CHECK(final_eval.contains(metric));
  CHECK(final_eval.at("per_label").at("f1").size() == 3);
  nlohmann::json again = evaluate_json(run);
  for (const char* key : {"loss", "examples", "micro_f1", "macro_f1", "subset_accuracy", "per_label"}) {
    INFO(key);
    CHECK(again.at(key) == final_eval.at(key));
  }
  nlohmann::json config = exported_config(run, dir + "/export");
  CHECK(config["problem_type"] == "multi_label_classification");
  CHECK(config["id2label"] == nlohmann::json{{"0", "food"}, {"1", "price"}, {"2", "staff"}});
  CHECK(config["label2id"] == nlohmann::json{{"food", 0}, {"price", 1}, {"staff", 2}});
  nlohmann::json line = predict_line(dir + "/export", dir, " --probabilities");
  REQUIRE(line["probabilities"].size() == 3);
  // The labels printed are those whose sigmoid is above 0.5.
  std::vector<std::string> above;
  const std::vector<std::string> names = {"food", "price", "staff"};
  for (size_t k = 0; k < 3; ++k)
    if (line["probabilities"][k].get<double>() > 0.5) above.push_back(names[k]);
  CHECK(line["label_names"].get<std::vector<std::string>>() == above);
  // Every sigmoid is above 0.001: --threshold 0.001 prints every label.
  nlohmann::json low = predict_line(dir + "/export", dir, " --threshold 0.001");
  CHECK(low["label_names"] == nlohmann::json{"food", "price", "staff"});
  CHECK(low["labels"] == nlohmann::json{0, 1, 2});
}

TEST_CASE("class weights train a classification and are recorded in the run", "[e2e][problem_types]") {
  std::string dir = runner::test::tmp_dir("e2e_class_weights");
  fs::create_directories(dir + "/data");
  for (const char* split : {"train", "dev"}) {
    std::ofstream f(dir + "/data/" + split + ".csv");
    f << "text,label\n";
    for (int i = 0; i < 24; ++i) f << task_sentence(i) << "," << (i % 4 == 0 ? "rare" : "common") << "\n";
  }
  std::string recipe = write_task_recipe(dir, "dataset = \"csv\"\ndir = \"" + dir + "/data\"\n"
                                         "columns = { text_a = \"text\", label = \"label\" }\n"
                                         "labels = { common = 0, rare = 1 }\n");
  auto r = runner_cmd("", recipe + isolated_run_sets(dir) + " --set train.class_weighting=balanced");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir, "task");
  // 24 / (2 * 18) and 24 / (2 * 6): scikit-learn's "balanced".
  nlohmann::json weights = run_summary(run).at("class_weights");
  REQUIRE(weights.size() == 2);
  CHECK(weights[0].get<double>() == Approx(24.0 / 36.0));
  CHECK(weights[1].get<double>() == Approx(2.0));
  nlohmann::json resolved = nlohmann::json::parse(runner::read_file_bytes(run + "/recipe.resolved.json"));
  CHECK(resolved["train"]["class_weighting"] == "balanced");
}

TEST_CASE("regression and multi-label train in bf16 with finite losses and their metrics", "[e2e][problem_types]") {
  std::string dir = runner::test::tmp_dir("e2e_problem_types_bf16");
  write_stsb_like(dir + "/stsb");
  write_aspects(dir + "/aspects");
  fs::create_directories(dir + "/regression");
  fs::create_directories(dir + "/multi_label");
  const std::vector<std::pair<std::string, std::string>> tasks = {
      {"regression", runner::test::stsb_like_data_lines(dir + "/stsb")},
      {"multi_label", "dataset = \"jsonl\"\ndir = \"" + dir + "/aspects\"\n"
                      "problem_type = \"multi_label_classification\"\n"
                      "labels = { food = 0, price = 1, staff = 2 }\n"
                      "columns = { text_a = \"text\", label = \"labels\" }\n"}};
  for (const auto& [name, data_lines] : tasks) {
    INFO(name);
    std::string recipe = write_task_recipe(dir + "/" + name, data_lines);
    auto r = runner_cmd("", recipe + isolated_run_sets(dir + "/" + name) + " --set train.precision=bf16");
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    std::string run = only_run_dir(dir + "/" + name, "task");
    for (const auto& e : runner::test::events(run, "train")) CHECK(std::isfinite(e["loss"].get<double>()));
    nlohmann::json final_eval = run_summary(run).at("final");
    CHECK(final_eval.contains(name == "regression" ? "pearson" : "micro_f1"));
  }
}
