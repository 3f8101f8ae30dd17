// Every family with Transformers' question answering head: loaded from a
// folder that Transformers saved, the same keys, start and end logits, loss
// (positions past the sequence ignored) and every gradient as
// AutoModelForQuestionAnswering computes them, padded; the loss over each
// row's tokens that a recipe trains by default, packed; and a save that loads
// back to the same logits.
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
#include <functional>
#include <limits>

using namespace runner;
using namespace runner::test;

namespace {

std::shared_ptr<TaskModel> load_family(const std::string& family) {
  return load_model_folder(qa_golden("tiny_" + family)).model;
}

// Transformers' loss by hand in fp64 from `logits`: the mean of the start and
// the end cross-entropy over the positions `counted(row, position)` accepts.
double loss_by_hand(const torch::Tensor& logits, const ModelBatch& batch,
                    const std::function<bool(int64_t, int64_t)>& counted) {
  const auto log_p = logits.to(torch::kFloat64).log_softmax(1);
  double sums[2] = {0, 0};
  int64_t counts[2] = {0, 0};
  for (int64_t r = 0; r < batch.labels.size(0); ++r)
    for (int64_t side = 0; side < 2; ++side) {
      const int64_t position = batch.labels[r][side].item<int64_t>();
      if (!counted(r, position)) continue;
      sums[side] -= log_p[r][position][side].item<double>();
      ++counts[side];
    }
  return (sums[0] / counts[0] + sums[1] / counts[1]) / 2;
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
  // Row 0 answers at 0 and 0; row 1 starts past the width: its start is left out.
  REQUIRE(batch.labels[1][0].item<int64_t>() > length);
  const double by_hand = loss_by_hand(model->forward(batch).logits, batch,
                                      [&](int64_t, int64_t position) { return position < length; });
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

TEST_CASE("question answering over each row's tokens: packed, Transformers' logits there, finfo.min at the padding",
          "[model][qa]") {
  for (const auto& family : token_families()) {
    INFO(family);
    auto model = load_family(family);
    model->set_loss_over_padding(false);
    model->set_execution(Execution::Unpadded);
    CHECK(model->execution() == Execution::Unpadded);
    model->eval();
    torch::NoGradGuard no_grad;
    const auto expected = qa_expected(family);
    const ModelBatch batch = qa_batch(expected, 0);
    const ModelOutput out = model->forward(batch);
    const torch::Tensor want = qa_logits(expected);
    const torch::Tensor real = batch.attention_mask.eq(1).unsqueeze(-1).expand_as(want);
    // The real tokens' logits do not depend on the padding: Transformers' within the fp32 parity.
    CHECK(max_abs(out.logits.masked_select(real), want.masked_select(real)) <=
          kFp32Parity * std::max(1.0, want.abs().max().item<double>()));
    const torch::Tensor padding = out.logits.masked_select(real.logical_not());
    REQUIRE(padding.numel() > 0);
    CHECK((padding == std::numeric_limits<float>::lowest()).all().item<bool>());
    // Transformers' loss on its logits with the padding masked to finfo.min.
    const double loss = qa_tokens_expected(family).at("forward").at("loss");
    CHECK(std::abs(out.loss.item<double>() - loss) <= kFp32Parity * loss);
  }
}

TEST_CASE("question answering over each row's tokens: the loss does not depend on how far rows are padded",
          "[model][qa]") {
  auto model = load_family("bert");
  model->set_loss_over_padding(false);
  model->eval();
  torch::NoGradGuard no_grad;
  const ModelBatch batch = qa_batch(qa_expected("bert"), 0);
  ModelBatch wider = batch;
  const auto extra = [](const torch::Tensor& t) { return torch::cat({t, torch::zeros({t.size(0), 16}, t.options())}, 1); };
  wider.input_ids = extra(batch.input_ids);
  wider.attention_mask = extra(batch.attention_mask);
  wider.token_type_ids = extra(batch.token_type_ids);
  // Only row 1's start lies past the width (ignored): keep it past the wider one.
  wider.labels = batch.labels.clone();
  wider.labels[1][0] = wider.input_ids.size(1) + 3;
  const double narrow = model->forward(batch).loss.item<double>(), wide = model->forward(wider).loss.item<double>();
  // The same packed tokens; each softmax adds 16 exact zeros, and its sum of <= 64
  // terms may be taken in another order: 64 x 2^-24 ~ 4e-6 relative.
  CHECK(std::abs(narrow - wide) <= 4e-6 * narrow);
  // Transformers' loss counts the padding: it moves with the width.
  model->set_loss_over_padding(true);
  CHECK(std::abs(model->forward(batch).loss.item<double>() - model->forward(wider).loss.item<double>()) > 1e-3 * narrow);
}

TEST_CASE("question answering over each row's tokens: a start or end at the padding is ignored", "[model][qa]") {
  auto model = load_family("bert");
  model->set_loss_over_padding(false);
  model->eval();
  torch::NoGradGuard no_grad;
  ModelBatch batch = qa_batch(qa_expected("bert"), 0);
  const int64_t length = batch.input_ids.size(1);
  // run_qa.py puts an answer that starts at a window's last context token at its last padding position.
  int64_t padded_row = -1;
  for (int64_t r = 2; r < batch.labels.size(0) && padded_row < 0; ++r)
    if (batch.attention_mask[r][length - 1].item<int64_t>() == 0) padded_row = r;
  REQUIRE(padded_row >= 0);
  batch.labels[padded_row][0] = length - 1;
  const ModelOutput out = model->forward(batch);
  REQUIRE(std::isfinite(out.loss.item<double>()));
  const double by_hand = loss_by_hand(out.logits, batch, [&](int64_t row, int64_t position) {
    return position < length && batch.attention_mask[row][position].item<int64_t>() == 1;
  });
  // fp32 over 8 rows of <= 49 terms, as the clamped positions' case above.
  CHECK(out.loss.item<double>() == Approx(by_hand).epsilon(1e-6));
}

TEST_CASE("question answering: a recipe's model takes the loss over the tokens unless told to include the padding",
          "[model][qa]") {
  const nlohmann::json section = {{"type", "bert"}, {"pretrained", qa_golden("tiny_bert")}};
  const ModelContext qa{2, {}, {}, TaskHead::QuestionAnswering};
  CHECK(build_model(section, qa).model->execution() == Execution::Unpadded);
  nlohmann::json with_padding = section;
  with_padding["qa_loss_includes_padding"] = true;
  auto padded = build_model(with_padding, qa).model;
  CHECK(padded->execution() == Execution::Padded);
  padded->eval();
  torch::NoGradGuard no_grad;
  const auto expected = qa_expected("bert");
  const torch::Tensor want = qa_logits(expected);
  CHECK(max_abs(padded->forward(qa_batch(expected, 0)).logits, want) <=
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
