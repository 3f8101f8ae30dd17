// Every family with Transformers' question answering head: loaded from a
// folder that Transformers saved, the same keys, start and end logits, loss
// (positions past the sequence ignored) and every gradient as
// AutoModelForQuestionAnswering computes them, always padded, and a save that
// loads back to the same logits.
#include "qa_golden.h"

#include "model/checkpoint.h"
#include "model/export_weights.h"
#include "model/model_factory.h"
#include "model/task_head.h"
#include "util/diagnostic.h"
#include "head_parity.h"

#include "catch.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace runner;
using namespace runner::test;

namespace {

std::shared_ptr<TaskModel> load_family(const std::string& family) {
  return load_model_folder(qa_golden("tiny_" + family)).model;
}

}  // namespace

TEST_CASE("question answering: every family's logits, loss and gradients match Transformers", "[model][qa]") {
  at::set_num_threads(1);
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = qa_expected(family);
    auto model = load_family(family);
    CHECK(model->hf_config().at("architectures").at(0).get<std::string>() ==
          expected.at("architecture").get<std::string>());
    CHECK(task_head_of(model->hf_config()) == TaskHead::QuestionAnswering);
    CHECK(model->num_labels() == 2);
    check_head_parity(*model, expected, qa_batch(expected, 0), qa_logits(expected), family);
  }
}

TEST_CASE("question answering: the loss ignores a start or end past the sequence, as Transformers clamps them",
          "[model][qa]") {
  auto model = load_family("bert");
  model->eval();
  torch::NoGradGuard no_grad;
  ModelBatch batch = qa_batch(qa_expected("bert"), 0);
  const int64_t length = batch.input_ids.size(1);
  auto logits = model->forward(batch).logits.to(torch::kFloat64);
  // Row 0 answers at 0 and 0; row 1 starts past the width: its start is left out.
  REQUIRE(batch.labels[1][0].item<int64_t>() > length);
  auto log_p = logits.log_softmax(1);
  double start = 0, end = 0;
  int64_t starts = 0;
  for (int64_t r = 0; r < batch.labels.size(0); ++r) {
    const int64_t s = batch.labels[r][0].item<int64_t>(), e = batch.labels[r][1].item<int64_t>();
    if (s < length) start -= log_p[r][s][0].item<double>(), ++starts;
    end -= log_p[r][e][1].item<double>();
  }
  const double by_hand = (start / starts + end / batch.labels.size(0)) / 2;
  // The model's loss runs in fp32 over 8 rows of <= 49 terms: a few 2^-24 relative each.
  CHECK(model->forward(batch).loss.item<double>() == Approx(by_hand).epsilon(1e-6));
}

TEST_CASE("question answering: the head runs padded even when unpadded execution is asked for", "[model][qa]") {
  auto model = load_family("roberta");
  model->eval();
  model->set_execution(Execution::Unpadded);
  CHECK(model->execution() == Execution::Padded);
  torch::NoGradGuard no_grad;
  const auto expected = qa_expected("roberta");
  const torch::Tensor want = qa_logits(expected);
  // Padding positions carry Transformers' logits too (a packed forward would give zeros there).
  CHECK(max_abs(model->forward(qa_batch(expected, 0)).logits, want) <=
        kFp32Parity * std::max(1.0, want.abs().max().item<double>()));
}

TEST_CASE("question answering: a saved model loads back with its head and logits", "[model][qa]") {
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = qa_expected(family);
    auto model = load_family(family);
    model->eval();
    const std::string dir = tmp_dir("qa_save_" + family);
    save_pretrained(*model, dir);
    auto again = load_model_folder(dir).model;
    again->eval();
    CHECK(again->hf_config().at("architectures") == model->hf_config().at("architectures"));
    torch::NoGradGuard no_grad;
    const ModelBatch batch = qa_batch(expected, 0);
    CHECK(max_abs(model->forward(batch).logits, again->forward(batch).logits) == 0.0);
  }
}

TEST_CASE("question answering: a head config with other than two outputs is refused", "[model][qa]") {
  const std::string dir = tmp_dir("qa_three_outputs");
  std::filesystem::copy(qa_golden("tiny_bert"), dir,
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  nlohmann::json config;
  std::ifstream(dir + "/config.json") >> config;
  config["id2label"] = {{"0", "a"}, {"1", "b"}, {"2", "c"}};
  config["label2id"] = {{"a", 0}, {"b", 1}, {"c", 2}};
  std::ofstream(dir + "/config.json") << config.dump();
  CHECK_THROWS_AS(load_model_folder(dir), InputError);
  CHECK_THROWS_WITH(load_model_folder(dir), Catch::Contains("num_labels") && Catch::Contains("start and end"));
}

TEST_CASE("question answering: export writes a folder AutoModelForQuestionAnswering reads", "[model][qa]") {
  // A run of the question_answering problem type exports with this head; the
  // weights here are the golden model's. scripts/golden/qa_export_check.py
  // loads the folder in Transformers.
  const std::string to = tmp_dir("qa_export") + "/bert";
  WeightsExport request;
  request.weights = qa_golden("tiny_bert/model.safetensors");
  request.model_section = {{"type", "bert"}, {"pretrained", qa_golden("tiny_bert")}};
  request.num_labels = 2;
  request.head = TaskHead::QuestionAnswering;
  request.to = to;
  export_weights(request);
  std::ifstream in(to + "/config.json");
  const auto config = nlohmann::json::parse(in);
  CHECK(config.at("architectures") == nlohmann::json::array({"BertForQuestionAnswering"}));
  std::vector<std::string> head;
  for (const auto& [name, tensor] : read_safetensors_weights(to + "/model.safetensors"))
    if (name.rfind("bert.", 0) != 0) head.push_back(name);
  std::sort(head.begin(), head.end());
  CHECK(head == std::vector<std::string>{"qa_outputs.bias", "qa_outputs.weight"});
  auto again = load_model_folder(to).model;
  again->eval();
  torch::NoGradGuard no_grad;
  const auto expected = qa_expected("bert");
  const torch::Tensor want = qa_logits(expected);
  CHECK(max_abs(again->forward(qa_batch(expected, 0)).logits, want) <=
        kFp32Parity * std::max(1.0, want.abs().max().item<double>()));
}
