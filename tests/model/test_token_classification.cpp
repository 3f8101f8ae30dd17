// Every family with Transformers' token-classification head: loaded from a
// folder that Transformers saved, the same keys in the same order, logits, loss
// and every gradient as AutoModelForTokenClassification computes them, packed
// execution equal to padded, and a save that loads back to the same logits.
#include "token_golden.h"

#include "model/checkpoint.h"
#include "model/model_factory.h"
#include "model/task_head.h"
#include "head_parity.h"

#include "catch.h"

#include <algorithm>
#include <cmath>

using namespace runner;
using namespace runner::test;

namespace {

std::shared_ptr<TaskModel> load_family(const std::string& family) {
  return load_model_folder(token_golden("tiny_" + family)).model;
}

}  // namespace

TEST_CASE("token classification: every family's logits, loss and gradients match Transformers",
          "[model][tokens]") {
  at::set_num_threads(1);
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = token_expected(family);
    auto model = load_family(family);
    CHECK(model->hf_config().at("architectures").at(0).get<std::string>() == expected.at("architecture").get<std::string>());
    CHECK(task_head_of(model->hf_config()) == TaskHead::TokenClassification);
    CHECK(model->num_labels() == 5);
    CHECK(model->label_name(3) == "B-LOC");
    model->set_execution(Execution::Padded);
    check_head_parity(*model, expected, token_batch(expected, 0), token_logits(expected), family);
  }
}

TEST_CASE("token classification: packed execution gives padded execution's logits, loss and gradients",
          "[model][tokens]") {
  at::set_num_threads(1);
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = token_expected(family);
    const ModelBatch batch = token_batch(expected, 1);
    std::vector<ModelOutput> outs;
    std::vector<std::shared_ptr<TaskModel>> models;
    for (Execution e : {Execution::Padded, Execution::Unpadded}) {
      auto model = load_family(family);
      model->train();  // dropout is 0 in these configs
      model->set_execution(e);
      outs.push_back(model->forward(batch));
      outs.back().loss.backward();
      models.push_back(model);
    }
    // The packed path runs the same ops on the real tokens alone: only the
    // GEMMs' and the attention's blocking differ, within the fp32 bound above.
    const auto real = batch.attention_mask.ne(0).unsqueeze(-1).expand_as(outs[1].logits);
    CHECK(max_abs(outs[0].logits.masked_select(real), outs[1].logits.masked_select(real)) <= kFp32Parity);
    CHECK(std::abs(outs[0].loss.item<double>() - outs[1].loss.item<double>()) <= kFp32Parity);
    // Padding positions of the packed logits are exactly zero.
    CHECK(outs[1].logits.masked_select(real.logical_not()).abs().sum().item<double>() == 0.0);
    auto padded = models[0]->named_parameters(), packed = models[1]->named_parameters();
    for (size_t i = 0; i < padded.size(); ++i) {
      INFO(padded[i].key());
      const auto g = padded[i].value().grad();
      CHECK(max_abs(g, packed[i].value().grad()) <= kFp32Parity * std::max(1.0, g.abs().max().item<double>()));
    }
  }
}

TEST_CASE("token classification: a saved model loads back with its head, labels and logits",
          "[model][tokens]") {
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = token_expected(family);
    auto model = load_family(family);
    model->eval();
    const std::string dir = tmp_dir("token_save_" + family);
    save_pretrained(*model, dir);
    auto again = load_model_folder(dir).model;
    again->eval();
    CHECK(again->hf_config().at("architectures") == model->hf_config().at("architectures"));
    CHECK(again->label_name(1) == "B-PER");
    torch::NoGradGuard no_grad;
    const ModelBatch batch = token_batch(expected, 0);
    CHECK(max_abs(model->forward(batch).logits, again->forward(batch).logits) == 0.0);
  }
}
