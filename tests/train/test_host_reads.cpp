// A training step never reads a value back from the device: on a GPU
// each read waits for the card, so a step that reads runs at the host's pace.
// On the CPU a read costs nothing, so it is counted instead, two ways: the
// runner's own helper (model/host_read.h, through which every read goes), and an
// ATen observer of the ops that read (_local_scalar_dense: every item(); nonzero:
// its output size comes from the device), which also sees reads that bypass the
// helper. Between two log steps both must be zero; a log step settles with
// exactly one read.
//
// The batches are made as the runner makes them (to_train_batch from a collated
// Batch), so the unpadded path and its packing are the ones under test.
#include "data/batch.h"
#include "model/host_read.h"
#include "train/split_batch_source.h"

#include "golden_loop.h"

#include <ATen/record_function.h>

#include <atomic>
#include <cstring>

using namespace runner;
using namespace runner::test;

namespace {

std::atomic<long long> observed_reads{0};

std::unique_ptr<at::ObserverContext> count_reading_ops(const at::RecordFunction& fn) {
  const char* name = fn.name();
  if (std::strcmp(name, "aten::_local_scalar_dense") == 0 || std::strcmp(name, "aten::nonzero") == 0)
    ++observed_reads;
  return nullptr;
}

// The observer, for one scope.
struct ReadObserver {
  at::CallbackHandle handle;
  ReadObserver() : handle(at::addGlobalCallback(at::RecordFunctionCallback(count_reading_ops))) {}
  ~ReadObserver() { at::removeCallback(handle); }
};

// Both counts at every progress event (emitted once per optimizer step, before
// that step's settle) and at the start.
struct ReadsPerStep : Logger {
  struct Mark {
    long long step, helper, observed;
  };
  std::vector<Mark> marks;
  std::vector<nlohmann::json> train;
  void log(const nlohmann::json& e) override {
    if (e["event"] == "start" || e["event"] == "progress")
      marks.push_back({e.value("step", 0LL), host_read_count(), observed_reads.load()});
    if (e["event"] == "train") train.push_back(e);
  }
};

// Golden rows collated as data/batch.h's Batch (right padding with 0, lengths
// rounded up to `multiple`), then made tensors as the runner makes them.
TrainBatch runner_batch(const std::vector<GoldenRow>& rows, size_t begin, size_t end, int64_t multiple) {
  Batch b;
  b.batch_size = static_cast<int64_t>(end - begin);
  for (size_t i = begin; i < end; ++i) b.seq_len = std::max<int64_t>(b.seq_len, rows[i].ids.size());
  if (multiple > 0) b.seq_len = (b.seq_len + multiple - 1) / multiple * multiple;
  const auto cells = static_cast<size_t>(b.batch_size * b.seq_len);
  b.input_ids.assign(cells, 0), b.token_type_ids.assign(cells, 0), b.attention_mask.assign(cells, 0);
  for (size_t i = begin; i < end; ++i) {
    const size_t at = (i - begin) * static_cast<size_t>(b.seq_len);
    for (size_t c = 0; c < rows[i].ids.size(); ++c) {
      b.input_ids[at + c] = rows[i].ids[c];
      b.token_type_ids[at + c] = rows[i].types[c];
      b.attention_mask[at + c] = 1;
    }
    b.labels.push_back(rows[i].label);
    b.example_ids.push_back(static_cast<int64_t>(i));
  }
  return to_train_batch(b, "train", torch::kCPU);
}

std::vector<TrainBatch> runner_batches(size_t steps, size_t batch_size, int64_t multiple) {
  std::vector<GoldenRow> rows = golden_rows("mrpc_train.jsonl", steps * batch_size);
  std::vector<TrainBatch> out;
  for (size_t i = 0; i < rows.size(); i += batch_size) out.push_back(runner_batch(rows, i, i + batch_size, multiple));
  return out;
}

struct Run {
  std::shared_ptr<TaskModel> model;
  ReadsPerStep reads;
};

// tiny_bert, AdamW, linear warm-up, clipping at 1.0: every lever of the step.
void train(Run& run, std::vector<TrainBatch> batches, Precision precision, Execution execution,
           long long log_every, CudaGraphs graphs = CudaGraphs::Off) {
  at::set_num_threads(1);
  run.model = load_golden_tiny_bert();
  run.model->set_execution(execution);
  GoldenLoop loop;
  loop.precision = precision;
  TrainerConfig cfg = golden_trainer_config(loop);
  cfg.log_every = log_every;
  cfg.eval_every = 0;
  cfg.cuda_graphs = graphs;
  FixedBatches data(std::move(batches));
  Trainer trainer(cfg, run.model, golden_adamw(*run.model), golden_schedule(), data, nullptr, {&run.reads});
  ReadObserver observer;
  trainer.train();
}

}  // namespace

TEST_CASE("a training step reads nothing back from the device between log steps", "[train][host_reads]") {
  // The third: the static-buffer step that CUDA graphs capture (train/step_graphs.h).
  for (int variant = 0; variant < 3; ++variant) {
    const Precision precision = variant == 1 ? Precision::Bf16 : Precision::Fp32;
    const CudaGraphs graphs = variant == 2 ? CudaGraphs::On : CudaGraphs::Off;
    DYNAMIC_SECTION(precision_name(precision) << (variant == 2 ? ", static-buffer step" : "")) {
      Run run;
      train(run, runner_batches(12, 8, 0), precision, Execution::Unpadded, 4, graphs);
      const auto& m = run.reads.marks;
      REQUIRE(m.size() == 13);  // the start, then steps 1..12
      for (size_t i = 1; i < m.size(); ++i) {
        // What ran between the previous mark and step m[i]: the previous step's
        // settle, log line and checkpoint when it was a log step, then step m[i].
        const bool after_log_step = m[i - 1].step > 0 && m[i - 1].step % 4 == 0;
        INFO("step " << m[i].step);
        CHECK(m[i].helper - m[i - 1].helper == (after_log_step ? 1 : 0));
        CHECK(m[i].observed - m[i - 1].observed == 0);
      }
      REQUIRE(run.reads.train.size() == 3);
      for (const auto& e : run.reads.train) CHECK(std::isfinite(e["loss"].get<double>()));
    }
  }
}

TEST_CASE("the packing made on the host trains the same model as packing from the mask", "[train][host_reads]") {
  // The same batches without ModelBatch::packed make the model pack its tokens
  // from the mask (torch::nonzero): the two layouts are the same integers, so
  // every parameter must come out bit-identical.
  Run packed, from_mask;
  std::vector<TrainBatch> batches = runner_batches(6, 8, 0), unpacked = batches;
  for (auto& b : unpacked) b.tensors.packed.reset();
  train(packed, batches, Precision::Fp32, Execution::Unpadded, 6);
  train(from_mask, unpacked, Precision::Fp32, Execution::Unpadded, 6);
  auto want = from_mask.model->named_parameters();
  for (const auto& p : packed.model->named_parameters()) {
    INFO(p.key());
    CHECK(torch::equal(p.value(), want[p.key()]));
  }
  CHECK(from_mask.reads.marks.back().observed > packed.reads.marks.back().observed);
}

TEST_CASE("bucketed padding gives the dynamic-padding losses", "[train][host_reads]") {
  // Lengths rounded up to a multiple of 32 (data.pad_to_multiple_of, what CUDA
  // graphs bucket by) add only masked positions: their attention weights are
  // exactly 0 and their rows are dropped, so a loss differs only by the order of
  // float sums over longer rows: a few float32 ulps (2^-24 = 6e-8 each) per op
  // through the forward, inside 1e-6 relative. Both are taken from the same
  // weights at every step of a training run: over a run, Adam turns the rounding
  // noise of gradients that are truly zero (the key biases) into steps of ~lr
  // whatever the padding, so trajectories part for reasons of their own.
  for (Execution execution : {Execution::Padded, Execution::Unpadded}) {
    DYNAMIC_SECTION((execution == Execution::Padded ? "padded" : "unpadded")) {
      at::set_num_threads(1);
      auto model = load_golden_tiny_bert();
      model->set_execution(execution);
      auto optimizer = golden_adamw(*model);
      std::vector<TrainBatch> dynamic = runner_batches(8, 8, 0), bucketed = runner_batches(8, 8, 32);
      for (size_t i = 0; i < dynamic.size(); ++i) {
        REQUIRE(bucketed[i].tensors.input_ids.size(1) % 32 == 0);
        double want = 0, got = 0;
        {
          torch::NoGradGuard no_grad;
          want = model->forward(dynamic[i].tensors).loss.item<double>();
          got = model->forward(bucketed[i].tensors).loss.item<double>();
        }
        INFO("step " << i + 1 << ": " << got << " vs " << want);
        CHECK(std::abs(got - want) <= 1e-6 * std::abs(want));
        model->forward(dynamic[i].tensors).loss.backward();
        optimizer->step(5e-4);
        for (auto& p : model->parameters()) p.mutable_grad().reset();
      }
    }
  }
}
