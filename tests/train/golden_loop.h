// The loop of shared/golden/trajectory, run by the runner's Trainer: tiny_bert from
// its golden weights, MRPC train rows 0..159 from the golden tokenization (so the
// tokenizer is not under test), batches padded to their longest, AdamW
// (lr 5e-4, wd 0.01, no decay on biases and LayerNorm weights), a linear schedule
// with 5 warm-up steps over 20, clipping at 1.0, single-threaded.
// test_trajectory (fp32) and test_mixed_precision (bf16) share it.
#pragma once

#include "model/model_factory.h"
#include "registry/registry.h"
#include "train/trainer.h"

#include "shared.h"

#include "catch.h"

#include <fstream>
#include <string>
#include <vector>

namespace runner::test {

struct GoldenRow {
  std::vector<int64_t> ids, types;
  int64_t label;
};

// The first `n` lines of a golden tokenization file ("mrpc_train.jsonl").
inline std::vector<GoldenRow> golden_rows(const std::string& file, size_t n) {
  std::ifstream in(shared_dir() + "/golden/tokenization/" + file);
  std::vector<GoldenRow> rows;
  std::string line;
  while (rows.size() < n && std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    rows.push_back({j["input_ids"], j["token_type_ids"], j["label"]});
  }
  REQUIRE(rows.size() == n);
  return rows;
}

// DataCollatorWithPadding(padding="longest"): right padding with 0.
inline TrainBatch collate(const std::vector<GoldenRow>& rows, size_t begin, size_t end) {
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
    out.example_ids.push_back("row/" + std::to_string(i));
    out.tokens += n;
  }
  out.tensors = {ids, types, mask, labels, std::nullopt};
  out.examples = b;
  return out;
}

inline std::vector<TrainBatch> golden_batches(const std::string& file, size_t rows, size_t batch_size,
                                              torch::Device device) {
  std::vector<GoldenRow> all = golden_rows(file, rows);
  std::vector<TrainBatch> batches;
  for (size_t i = 0; i < all.size(); i += batch_size) {
    TrainBatch b = collate(all, i, std::min(all.size(), i + batch_size));
    ModelBatch& t = b.tensors;
    t = {t.input_ids.to(device), t.token_type_ids.to(device), t.attention_mask.to(device),
         t.labels.to(device), std::nullopt};
    batches.push_back(std::move(b));
  }
  return batches;
}

// MRPC dev rows 0..63 in batches of 16: the golden generator's evaluation set.
inline EvalSet golden_dev_set(torch::Device device = torch::kCPU) {
  return EvalSet{golden_batches("mrpc_dev.jsonl", 64, 16, device), {"accuracy"}};
}

struct CaptureEvents : Logger {
  std::vector<nlohmann::json> events;
  void log(const nlohmann::json& e) override { events.push_back(e); }
  std::vector<nlohmann::json> of(const std::string& kind) const {
    std::vector<nlohmann::json> out;
    for (const auto& e : events)
      if (e["event"] == kind) out.push_back(e);
    return out;
  }
};

struct GoldenLoop {
  size_t batch_size = 8;
  long long grad_accum = 1;
  Precision precision = Precision::Fp32;
  const EvalSet* eval = nullptr;  // evaluated after the last step when set
  torch::Device device = torch::kCPU;
};

struct GoldenLoopResult {
  std::vector<nlohmann::json> train_events, eval_events;
  std::shared_ptr<TaskModel> model;
  std::unique_ptr<Trainer> trainer;  // kept for evaluations of the trained model
};

inline std::shared_ptr<TaskModel> load_golden_tiny_bert(torch::Device device = torch::kCPU) {
  std::string tiny = shared_dir() + "/golden/tiny_bert";
  LoadedModel loaded = load_model_folder(tiny, tiny + "/model.safetensors");
  loaded.model->set_execution(Execution::Padded);
  loaded.model->to(device);
  return loaded.model;
}

inline std::unique_ptr<Optimizer> golden_adamw(TaskModel& model) {
  std::vector<NamedParameter> params;
  for (auto& p : model.named_parameters()) params.push_back({p.key(), p.value()});
  nlohmann::json opt = {{"lr", 5e-4}, {"weight_decay", 0.01},
                        {"no_decay", {"bias", "LayerNorm.weight"}},
                        {"betas", {0.9, 0.999}}, {"eps", 1e-8}};
  return registry().factory<OptimizerFactory>(Kind::Optimizer, "adamw")(opt, params);
}

inline TrainerConfig golden_trainer_config(const GoldenLoop& loop) {
  TrainerConfig cfg = train_options().defaults();
  cfg.epochs = 1;
  cfg.grad_accum = loop.grad_accum;
  cfg.max_grad_norm = 1.0;
  cfg.log_every = 1;
  cfg.precision = loop.precision;
  cfg.eval_every = 20;
  cfg.eval_each_epoch = false;
  return cfg;
}

inline Trainer::ScheduleMaker golden_schedule() {
  return [](long long total) {
    return registry().factory<SchedulerFactory>(Kind::Scheduler, "linear")(
        nlohmann::json::object(), ScheduleParams{total, 5, 5e-4});
  };
}

// A data source that outlives the trainer that reads it.
struct GoldenData {
  FixedBatches batches;
  CaptureEvents capture;
};

inline GoldenLoopResult run_golden_loop(const GoldenLoop& loop, GoldenData& data) {
  at::set_num_threads(1);
  GoldenLoopResult r;
  r.model = load_golden_tiny_bert(loop.device);
  r.trainer = std::make_unique<Trainer>(golden_trainer_config(loop), r.model, golden_adamw(*r.model),
                                        golden_schedule(), data.batches, loop.eval,
                                        std::vector<Logger*>{&data.capture});
  REQUIRE(r.trainer->total_steps() == 20);
  r.trainer->train();
  r.train_events = data.capture.of("train");
  r.eval_events = data.capture.of("eval");
  return r;
}

inline GoldenData golden_train_data(size_t batch_size, torch::Device device = torch::kCPU) {
  return GoldenData{FixedBatches(golden_batches("mrpc_train.jsonl", 160, batch_size, device)), {}};
}

// A new model holding `trained`'s weights, as a new run would load them: none of
// the trained model's tensors (nor anything cached for them) is shared.
inline std::shared_ptr<TaskModel> fresh_copy(TaskModel& trained,
                                                      torch::Device device = torch::kCPU) {
  auto fresh = load_golden_tiny_bert(device);
  torch::NoGradGuard no_grad;
  auto from = trained.named_parameters();
  for (auto& p : fresh->named_parameters()) p.value().copy_(from[p.key()]);
  return fresh;
}

// Evaluates `model` on `eval` as a freshly set-up Trainer in `precision` would.
inline nlohmann::json evaluate_with(std::shared_ptr<TaskModel> model, Precision precision,
                                    const EvalSet& eval) {
  GoldenLoop loop;
  loop.precision = precision;
  FixedBatches none(eval.batches);
  Trainer trainer(golden_trainer_config(loop), model, golden_adamw(*model), golden_schedule(), none,
                  &eval, {});
  return trainer.evaluate();
}

}  // namespace runner::test
