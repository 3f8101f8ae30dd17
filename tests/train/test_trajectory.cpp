// Parity with shared/golden/trajectory: the real Accelerate loop (AdamW, linear
// schedule with warmup, clipping at 1.0, K = 1 and K = 2) on tiny_bert over MRPC
// train rows 0..159. The batches come from the golden tokenization, so this test
// checks the training engine and the model, not the tokenizer.
#include "model/model_factory.h"
#include "registry/registry.h"
#include "train/trainer.h"

#include "shared.h"

#include "catch.h"

#include <fstream>

using namespace runner;

namespace {

struct Row {
  std::vector<int64_t> ids, types;
  int64_t label;
};

std::vector<Row> golden_rows(size_t n) {
  std::ifstream in(runner::test::shared_dir() + "/golden/tokenization/mrpc_train.jsonl");
  std::vector<Row> rows;
  std::string line;
  while (rows.size() < n && std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    rows.push_back({j["input_ids"], j["token_type_ids"], j["label"]});
  }
  return rows;
}

// DataCollatorWithPadding(padding="longest"): right padding with 0.
TrainBatch collate(const std::vector<Row>& rows, size_t begin, size_t end) {
  size_t len = 0;
  for (size_t i = begin; i < end; ++i) len = std::max(len, rows[i].ids.size());
  long long b = static_cast<long long>(end - begin), l = static_cast<long long>(len);
  torch::Tensor ids = torch::zeros({b, l}, torch::kInt64), types = torch::zeros({b, l}, torch::kInt64),
                mask = torch::zeros({b, l}, torch::kInt64), labels = torch::zeros({b}, torch::kInt64);
  TrainBatch out;
  for (size_t i = begin; i < end; ++i) {
    long long r = static_cast<long long>(i - begin), n = static_cast<long long>(rows[i].ids.size());
    ids[r].slice(0, 0, n).copy_(torch::tensor(rows[i].ids));
    types[r].slice(0, 0, n).copy_(torch::tensor(rows[i].types));
    mask[r].slice(0, 0, n).fill_(1);
    labels[r] = rows[i].label;
    out.example_ids.push_back("mrpc/train/" + std::to_string(i));
    out.tokens += n;
  }
  out.tensors = {ids, types, mask, labels};
  out.examples = b;
  return out;
}

struct Capture : Logger {
  std::vector<nlohmann::json> events;
  void log(const nlohmann::json& e) override { events.push_back(e); }
};

struct RunResult {
  std::vector<nlohmann::json> train_events;
  std::shared_ptr<SequenceClassifier> model;
};

RunResult run_golden_loop(size_t batch_size, long long k) {
  at::set_num_threads(1);
  std::string tiny = runner::test::shared_dir() + "/golden/tiny_bert";
  LoadedModel loaded = load_model_folder(tiny, tiny + "/model.safetensors");
  loaded.model->set_execution(Execution::Padded);
  std::vector<NamedParameter> params;
  for (auto& p : loaded.model->named_parameters()) params.push_back({p.key(), p.value()});
  nlohmann::json opt = {{"lr", 5e-4}, {"weight_decay", 0.01},
                        {"no_decay", {"bias", "LayerNorm.weight"}},
                        {"betas", {0.9, 0.999}}, {"eps", 1e-8}};
  auto optimizer = registry().factory<OptimizerFactory>(Kind::Optimizer, "adamw")(opt, params);
  auto schedule = [](long long total) {
    return registry().factory<SchedulerFactory>(Kind::Scheduler, "linear")(
        nlohmann::json::object(), ScheduleParams{total, 5, 5e-4});
  };
  std::vector<Row> rows = golden_rows(160);
  std::vector<TrainBatch> batches;
  for (size_t i = 0; i < rows.size(); i += batch_size) batches.push_back(collate(rows, i, i + batch_size));
  FixedBatches data(batches);
  TrainerConfig cfg = train_options().defaults();
  cfg.epochs = 1;
  cfg.grad_accum = k;
  cfg.max_grad_norm = 1.0;
  cfg.log_every = 1;
  Capture capture;
  Trainer trainer(cfg, loaded.model, std::move(optimizer), schedule, data, nullptr, {&capture});
  REQUIRE(trainer.total_steps() == 20);
  trainer.train();
  RunResult r{{}, loaded.model};
  for (auto& e : capture.events)
    if (e["event"] == "train") r.train_events.push_back(e);
  return r;
}

void check_trajectory(const RunResult& r, const nlohmann::json& golden) {
  const auto& steps = golden["steps"];
  REQUIRE(r.train_events.size() == steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    INFO("step " << i + 1);
    const auto& e = r.train_events[i];
    CHECK(e["step"].get<long long>() == steps[i]["step"].get<long long>());
    CHECK(e["loss"].get<double>() == Approx(steps[i]["loss"].get<double>()).epsilon(1e-5));
    CHECK(e["grad_norm"].get<double>() ==
          Approx(steps[i]["grad_norm_preclip"].get<double>()).epsilon(1e-5));
    CHECK(e["lr"].get<double>() == Approx(steps[i]["lr"].get<double>()).epsilon(1e-5).margin(1e-12));
  }
}

nlohmann::json trajectory() {
  std::ifstream in(runner::test::shared_dir() + "/golden/trajectory/trajectory.json");
  return nlohmann::json::parse(in);
}

// Largest absolute difference from final_params_accum1.safetensors.
double max_param_diff(SequenceClassifier& model) {
  StateDict expected = read_safetensors_weights(runner::test::shared_dir() +
                                                "/golden/trajectory/final_params_accum1.safetensors");
  auto params = model.named_parameters();
  double worst = 0;
  REQUIRE(expected.size() == params.size());
  for (const auto& [name, t] : expected) {
    INFO(name);
    REQUIRE(params.contains(name));
    worst = std::max(worst, (params[name].detach() - t.to(torch::kFloat32)).abs().max().item<double>());
  }
  return worst;
}

}  // namespace

TEST_CASE("training matches the Accelerate trajectory with K = 1", "[train][parity]") {
  RunResult r = run_golden_loop(8, 1);
  check_trajectory(r, trajectory()["accum1_batch8"]);
  // The README allows 4e-4 (Adam's m/sqrt(v) amplifies rounding where gradients
  // are ~0). Since every Linear goes through aten::linear as F.linear does, the
  // same ops in the same order give HF's final parameters exactly here (0.0
  // measured); 1e-6 leaves room for another BLAS build, not for another op order.
  CHECK(max_param_diff(*r.model) < 1e-6);
}

TEST_CASE("training matches the Accelerate trajectory with K = 2", "[train][parity]") {
  RunResult r = run_golden_loop(4, 2);
  check_trajectory(r, trajectory()["accum2_batch4"]);
  // The README's K=1 vs K=2 bound: Adam amplifies rounding where gradients are ~0.
  CHECK(max_param_diff(*r.model) < 4e-4);
}
