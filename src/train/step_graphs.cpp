#include "train/step_graphs.h"

#ifdef RUNNER_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace runner {

struct StepGraphs::Shape {
  ModelBatch inputs;                  // the static buffers the body reads
  std::vector<torch::Tensor> outputs;  // the captured body's outputs
  int runs = 0;
#ifdef RUNNER_WITH_CUDA
  std::unique_ptr<at::cuda::CUDAGraph> graph;
#endif
};

#ifdef RUNNER_WITH_CUDA
struct StepGraphs::Device {
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  std::optional<at::cuda::MempoolId_t> pool;  // the first capture's, shared by the later ones
};
#else
struct StepGraphs::Device {};
#endif

StepGraphs::StepGraphs(bool capture, int max_graphs, int warmup_steps)
    : capture_(capture), max_graphs_(max_graphs), warmup_steps_(warmup_steps) {
#ifdef RUNNER_WITH_CUDA
  if (capture_) device_ = std::make_unique<Device>();
#else
  capture_ = false;  // a CPU build has no graphs to capture
#endif
}

StepGraphs::~StepGraphs() = default;

int StepGraphs::captured() const {
  int n = 0;
#ifdef RUNNER_WITH_CUDA
  for (const auto& [key, s] : shapes_) n += s->graph != nullptr;
#endif
  return n;
}

// The shape's buffers, made the first time it comes (while there is room).
StepGraphs::Shape* StepGraphs::shape_of(const ModelBatch& batch) {
  const auto key = std::make_pair(batch.input_ids.size(0), batch.input_ids.size(1));
  auto it = shapes_.find(key);
  if (it != shapes_.end()) return it->second.get();
  if (static_cast<int>(shapes_.size()) >= max_graphs_) return nullptr;
  auto s = std::make_unique<Shape>();
  s->inputs = {torch::empty_like(batch.input_ids), torch::empty_like(batch.token_type_ids),
               torch::empty_like(batch.attention_mask), torch::empty_like(batch.labels), std::nullopt};
  return shapes_.emplace(key, std::move(s)).first->second.get();
}

std::optional<std::vector<torch::Tensor>> StepGraphs::run(const ModelBatch& batch, const Body& body) {
  if (!batch.labels.defined()) return std::nullopt;
  Shape* s = shape_of(batch);
  if (!s) return std::nullopt;
  s->inputs.input_ids.copy_(batch.input_ids, /*non_blocking=*/true);
  s->inputs.token_type_ids.copy_(batch.token_type_ids, true);
  s->inputs.attention_mask.copy_(batch.attention_mask, true);
  s->inputs.labels.copy_(batch.labels, true);
  ++s->runs;
  if (!capture_ || s->runs <= warmup_steps_) return warm_up(*s, body);
#ifdef RUNNER_WITH_CUDA
  if (!s->graph) capture(*s, body);
  else s->graph->replay();
#endif
  // Another shape's replay may reuse these outputs' memory (the shared pool).
  std::vector<torch::Tensor> copies;
  for (const auto& t : s->outputs) copies.push_back(t.clone());
  return copies;
}

#ifdef RUNNER_WITH_CUDA
// torch.cuda.graphs' warm-up runs on a side stream, ordered after the work
// already queued and before what follows.
std::vector<torch::Tensor> StepGraphs::warm_up(Shape& s, const Body& body) {
  if (!capture_) return body(s.inputs);
  c10::cuda::device_synchronize();
  std::vector<torch::Tensor> out;
  {
    c10::cuda::CUDAStreamGuard side(device_->side);
    out = body(s.inputs);
  }
  c10::cuda::device_synchronize();
  return out;
}

// Capturing records the kernels without running them: one replay then takes the step.
// The warm-ups' freed blocks are cached for eager use, where the capture cannot take
// them: given back first, so that the step's memory is not held twice.
std::vector<torch::Tensor> StepGraphs::capture(Shape& s, const Body& body) {
  c10::cuda::device_synchronize();
  c10::cuda::CUDACachingAllocator::emptyCache();
  s.graph = std::make_unique<at::cuda::CUDAGraph>();
  {
    c10::cuda::CUDAStreamGuard side(device_->side);
    s.graph->capture_begin(device_->pool.value_or(at::cuda::MempoolId_t{0, 0}));
    s.outputs = body(s.inputs);
    s.graph->capture_end();
  }
  if (!device_->pool) device_->pool = s.graph->pool();
  s.graph->replay();
  return s.outputs;
}
#else
std::vector<torch::Tensor> StepGraphs::warm_up(Shape& s, const Body& body) { return body(s.inputs); }
std::vector<torch::Tensor> StepGraphs::capture(Shape& s, const Body& body) { return warm_up(s, body); }
#endif

}  // namespace runner
