// Extractive question answering through the real `runner` on the smoke recipe
// (recipes/smoke/qa_smoke.toml: SQuAD v2.0 JSONL built from GLUE text, contexts
// longer than max_length): one run of 80 tiny steps trains, evaluates its windows'
// answers on the original questions, and a run killed with SIGKILL resumes to
// its weights; `runner evaluate` reports the run's own final record, export
// writes the question answering head (a PEFT adapter folder for a LoRA run)
// and predict refuses the model.
#include "util/synced_file.h"

#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <cmath>
#include <fstream>

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
  auto killed = runner_cmd("RUNNER_TEST_KILL_AT_STEP=40", "run " + runner::test::source_dir() +
                                                              "/recipes/smoke/qa_smoke.toml" +
                                                              isolated_run_sets(dir + "/killed"));
  INFO(killed.out);
  REQUIRE(killed.exit_code == 128 + 9);
  const std::string resumed_run = only_run_dir(dir + "/killed", "qa_smoke");
  auto resumed = runner_cmd("", "resume " + resumed_run);
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
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
  // predict prints one label per text: a question answering model is refused, not misread.
  std::ofstream(dir + "/in.jsonl") << "{\"text_a\": \"a charming film\"}\n";
  auto predicted = runner_cmd("", "predict --model " + dir + "/export --input " + dir + "/in.jsonl");
  INFO(predicted.out);
  CHECK(predicted.exit_code == 2);
  CHECK_THAT(predicted.out, Catch::Contains("question answering model") && Catch::Contains("runner evaluate"));
}
