// Extractive question answering through the real `runner` on the smoke recipe
// (recipes/smoke/qa_smoke.toml: SQuAD v2.0 JSONL built from GLUE text, contexts
// longer than max_length): one run of 80 tiny steps trains, evaluates its windows'
// answers on the original questions, and a run killed with SIGKILL resumes to
// its weights; `runner evaluate` reports the run's own final record, export
// writes the question answering head (a PEFT adapter folder for a LoRA run)
// and predict answers questions as evaluation did.
#include "train/metrics_squad.h"
#include "util/synced_file.h"

#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>

using runner::test::isolated_run_sets;
using runner::test::only_run_dir;
using runner::test::run_summary;
using runner::test::runner_cmd;

TEST_CASE("question answering trains, scores its questions with SQuAD v2.0 and exports its head", "[e2e][qa]") {
  const std::string dir = runner::test::tmp_dir("e2e_qa");
  auto trained = runner_cmd("", "run " + runner::test::source_dir() + "/recipes/smoke/qa_smoke.toml" +
                                    isolated_run_sets(dir));
  INFO(trained.out);
  REQUIRE(trained.exit_code == 0);
  const std::string run = only_run_dir(dir, "qa_smoke");
  const nlohmann::json final_eval = run_summary(run).at("final");
  INFO(final_eval.dump());
  for (const char* metric : {"exact_match", "f1", "HasAns_exact", "HasAns_f1", "NoAns_exact", "NoAns_f1"}) {
    INFO(metric);
    REQUIRE(final_eval.contains(metric));
    CHECK(final_eval[metric].get<double>() >= 0.0);
    CHECK(final_eval[metric].get<double>() <= 100.0);
  }
  CHECK(final_eval["f1"].get<double>() >= final_eval["exact_match"].get<double>());
  // dev.jsonl has 16 questions: 11 with a film word, 5 without. Scores are per
  // question, not per window: the totals are the splits' question-weighted mean.
  CHECK(final_eval.at("HasAns_total") == 11);
  CHECK(final_eval.at("NoAns_total") == 5);
  const double weighted = (11 * final_eval["HasAns_exact"].get<double>() + 5 * final_eval["NoAns_exact"].get<double>()) / 16;
  CHECK(final_eval["exact_match"].get<double>() == Approx(weighted).epsilon(1e-12));
  // It learns: answering nothing would score the unanswerable share, 5 / 16 = 31.25.
  CHECK(final_eval["f1"].get<double>() > 31.25);
  // Contexts past max_length = 48 are read in several windows, each an evaluated row.
  CHECK(final_eval.at("examples").get<long long>() > 16);
  CHECK(std::isfinite(final_eval.at("loss").get<double>()));
  CHECK(run_summary(run)["best"]["metric"] == "eval.f1");

  // Killed with SIGKILL at step 40 (the last checkpoint at 32) and resumed: the same final weights and scores.
  const std::string resumed_run = runner::test::killed_and_resumed(
      "run " + runner::test::source_dir() + "/recipes/smoke/qa_smoke.toml", dir + "/killed", "qa_smoke", 40);
  CHECK(run_summary(resumed_run)["final"] == final_eval);
  CHECK(runner::read_file_bytes(resumed_run + "/final/model.safetensors") ==
        runner::read_file_bytes(run + "/final/model.safetensors"));

  {  // With LoRA on a pretrained tiny BERT, export writes a PEFT adapter folder of the question answering head.
    const std::string lora_dir = dir + "/lora";
    auto adapted = runner_cmd("", "run " + runner::test::source_dir() + "/recipes/smoke/qa_smoke.toml" +
                                      isolated_run_sets(lora_dir) + " --set train.epochs=1 --set lora.enabled=true" +
                                      " --set model.pretrained=" + runner::test::shared_dir() + "/golden/tiny_bert");
    INFO(adapted.out);
    REQUIRE(adapted.exit_code == 0);
    auto adapter = runner_cmd("", "export " + only_run_dir(lora_dir, "qa_smoke") + " --to " + lora_dir + "/adapter");
    INFO(adapter.out);
    REQUIRE(adapter.exit_code == 0);
    const auto peft = nlohmann::json::parse(runner::read_file_bytes(lora_dir + "/adapter/adapter_config.json"));
    CHECK(peft.at("task_type") == "QUESTION_ANS");
    CHECK(peft.at("modules_to_save") == nlohmann::json{"qa_outputs"});
  }

  auto evaluated = runner_cmd("", "evaluate " + run + " --json");
  INFO(evaluated.out);
  REQUIRE(evaluated.exit_code == 0);
  const nlohmann::json again = nlohmann::json::parse(evaluated.out.substr(evaluated.out.find('{')));
  for (const char* key : {"loss", "examples", "exact_match", "f1", "HasAns_f1", "NoAns_f1"}) {
    INFO(key);
    CHECK(again.at(key) == final_eval.at(key));
  }

  auto exported = runner_cmd("", "export " + run + " --to " + dir + "/export");
  INFO(exported.out);
  REQUIRE(exported.exit_code == 0);
  const nlohmann::json config = nlohmann::json::parse(runner::read_file_bytes(dir + "/export/config.json"));
  CHECK(config["architectures"] == nlohmann::json{"BertForQuestionAnswering"});
  // predict answers the dev questions with the run's windows and post-processing:
  // its answers score the exact match evaluation reported.
  const std::string questions = runner::test::source_dir() + "/recipes/smoke/qa/dev.jsonl";
  std::vector<nlohmann::json> dev;
  {
    std::ifstream in(questions);
    for (std::string line; std::getline(in, line);) dev.push_back(nlohmann::json::parse(line));
  }
  auto answered = runner_cmd("", "predict --model " + run + " --input " + questions + " --batch-size 32");
  INFO(answered.out);
  REQUIRE(answered.exit_code == 0);
  std::istringstream lines(answered.out.substr(answered.out.find('{')));
  double exact = 0;
  for (const nlohmann::json& question : dev) {
    std::string text;
    REQUIRE(std::getline(lines, text));
    const nlohmann::json line = nlohmann::json::parse(text);
    CHECK(line.at("id") == question.at("id"));
    const std::string answer = line.at("answer");
    int best = question["answers"]["text"].empty() ? runner::squad_exact("", answer) : 0;
    for (const auto& gold : question["answers"]["text"]) best = std::max(best, runner::squad_exact(gold.get<std::string>(), answer));
    exact += best;
    CHECK(line.contains("null_score_diff"));  // a SQuAD v2.0 run
    if (answer.empty()) continue;
    const std::string context = question.at("context");  // ASCII: code points are bytes
    const auto start = line.at("start").get<size_t>(), end = line.at("end").get<size_t>();
    CHECK(context.substr(start, end - start) == answer);
  }
  // The same 0/1 counts averaged: equal up to float64 rounding.
  CHECK(100.0 * exact / static_cast<double>(dev.size()) == Approx(final_eval.at("exact_match").get<double>()).epsilon(1e-12));

  // The exported folder alone: run_qa.py's windows, SQuAD v1.1's rule (always an answer).
  auto folder = runner_cmd("", "predict --model " + dir + "/export --input " + questions);
  INFO(folder.out);
  REQUIRE(folder.exit_code == 0);
  const nlohmann::json first = nlohmann::json::parse(folder.out.substr(folder.out.find('{'), folder.out.find('\n', folder.out.find('{')) - folder.out.find('{')));
  CHECK_FALSE(first.at("answer").get<std::string>().empty());
  CHECK_FALSE(first.contains("null_score_diff"));
  // A line that is not a question is refused with its place.
  std::ofstream(dir + "/in.jsonl") << "{\"text_a\": \"a charming film\"}\n";
  auto refused = runner_cmd("", "predict --model " + dir + "/export --input " + dir + "/in.jsonl");
  INFO(refused.out);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.out, Catch::Contains(dir + "/in.jsonl:1") && Catch::Contains("no \"question\" string"));
}

TEST_CASE("question answering with byte-level BPE and Unigram tokenizers: answers are their contexts' spans",
          "[e2e][qa]") {
  // RoBERTa with the golden byte-level BPE tokenizer.json, DeBERTa-v3 with the golden
  // Unigram one: their offsets, not WordPiece's, place every answer in its context. A
  // null-answer threshold no score reaches makes every prediction a span.
  const std::string dir = runner::test::tmp_dir("e2e_qa_tokenizers");
  const std::string questions = runner::test::source_dir() + "/recipes/smoke/qa/dev.jsonl";
  const std::string small = " --set model.hidden_size=32 --set model.num_hidden_layers=2"
                            " --set model.num_attention_heads=4 --set model.intermediate_size=64";
  for (const auto& [type, preset, tokenizer] :
       {std::array<std::string, 3>{"roberta", "roberta-base", "roberta_bpe"}, {"deberta-v2", "deberta-v3-base", "deberta_unigram"}}) {
    INFO(type);
    const std::string out = dir + "/" + type;
    const std::string tok = runner::test::source_dir() + "/tests/tokenizer/golden/" + tokenizer + ".tokenizer.json";
    auto trained = runner_cmd("", "run " + runner::test::source_dir() + "/recipes/smoke/qa_smoke.toml" +
                                      isolated_run_sets(out) + " --set model.type=" + type + " --set model.preset=" +
                                      preset + small + " --set tokenizer.path=" + tok + " --set train.max_steps=4" +
                                      " --set data.null_score_diff_threshold=1000");
    INFO(trained.out);
    REQUIRE(trained.exit_code == 0);
    const std::string run = only_run_dir(out, "qa_smoke");
    const nlohmann::json final_eval = run_summary(run).at("final");
    for (const char* metric : {"exact_match", "f1"}) {
      CHECK(final_eval.at(metric).get<double>() >= 0.0);
      CHECK(final_eval.at(metric).get<double>() <= 100.0);
    }
    auto predicted = runner_cmd("", "predict --model " + run + " --input " + questions);
    INFO(predicted.out);
    REQUIRE(predicted.exit_code == 0);
    std::istringstream lines(predicted.out);
    int answers = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] != '{') continue;
      const nlohmann::json p = nlohmann::json::parse(line);
      REQUIRE(p.contains("start"));
      // The contexts are ASCII: code-point offsets are byte offsets.
      const std::string context = p.at("context").get<std::string>(), answer = p.at("answer").get<std::string>();
      const size_t start = p.at("start").get<size_t>(), end = p.at("end").get<size_t>();
      REQUIRE(end >= start);
      REQUIRE(end <= context.size());
      CHECK_FALSE(answer.empty());
      CHECK(context.substr(start, end - start) == answer);
      ++answers;
    }
    CHECK(answers == 16);
  }
}
