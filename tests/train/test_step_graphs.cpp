// train.cuda_graphs: a window of one micro-batch runs as one body over static
// input buffers (train/step_graphs.h), captured as a CUDA graph on a GPU. On the
// CPU nothing is captured, but the same body, buffers and bookkeeping run, so
// the CPU checks that the graphed step computes exactly what the eager step
// does: the same operations on the same values, hence bit-identical results.
// (The GPU's capture and replay: tests/cuda.)
#include "golden_loop.h"

using namespace runner;
using namespace runner::test;

namespace {

struct GraphRun {
  std::shared_ptr<TaskModel> model;
  CaptureEvents events;
};

// The golden loop (tiny_bert, AdamW, warm-up, clipping) over 20 batches padded to
// their longest: 18 shapes, more than StepGraphs' 8, so both paths take turns.
void train(GraphRun& run, CudaGraphs graphs, long long grad_accum) {
  at::set_num_threads(1);
  run.model = load_golden_tiny_bert();  // padded execution, as graphs require
  GoldenLoop loop;
  loop.grad_accum = grad_accum;
  TrainerConfig cfg = golden_trainer_config(loop);
  cfg.cuda_graphs = graphs;
  cfg.eval_every = 0;
  FixedBatches data(golden_batches("mrpc_train.jsonl", 160, 8, torch::kCPU));
  Trainer trainer(cfg, run.model, golden_adamw(*run.model), golden_schedule(), data, nullptr, {&run.events});
  trainer.train();
}

}  // namespace

TEST_CASE("the static-buffer step trains exactly as the eager step", "[train][cuda_graphs]") {
  for (long long grad_accum : {1LL, 3LL}) {  // 3: only the epoch's last window (2 of 20) is a single micro-batch
    DYNAMIC_SECTION("grad_accum " << grad_accum) {
      GraphRun eager, graphed;
      train(eager, CudaGraphs::Off, grad_accum);
      train(graphed, CudaGraphs::On, grad_accum);
      auto a = eager.events.of("train"), b = graphed.events.of("train");
      REQUIRE(a.size() == b.size());
      REQUIRE(!a.empty());
      for (size_t i = 0; i < a.size(); ++i) {
        INFO("log line " << i);
        CHECK(a[i]["loss"] == b[i]["loss"]);
        CHECK(a[i]["grad_norm"] == b[i]["grad_norm"]);
        CHECK(a[i]["lr"] == b[i]["lr"]);
      }
      auto want = eager.model->named_parameters();
      for (const auto& p : graphed.model->named_parameters()) {
        INFO(p.key());
        CHECK(torch::equal(p.value(), want[p.key()]));
      }
      auto note = graphed.events.of("cuda_graphs");
      REQUIRE(note.size() == 1);
      CHECK(note[0]["captured"] == false);  // the CPU: nothing to capture
      CHECK(eager.events.of("cuda_graphs").empty());
    }
  }
}
