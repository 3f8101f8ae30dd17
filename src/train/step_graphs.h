// Whole training steps (forward, backward, clipping, optimizer update, schedule
// and loss-scale updates) as CUDA graphs, one per input shape (batch size x
// padded length): a replay launches the few thousand kernels of a BERT step at
// once, where the eager step pays the host's launch cost for each of them.
// What is computed does not change; torch.cuda.graphs' rules hold:
// - inputs are copied into static buffers that the graph reads;
// - a shape is run eagerly a few times (warm-up: cuBLAS handles, autograd's
//   streams, the optimizer's state), captured on a side stream, then replayed;
// - the body's outputs are static tensors, overwritten by the next replay: run()
//   hands the caller copies;
// - nothing in the body reads the device from the host (train/train_step.h), and
//   every state it updates keeps its address (the optimizer's moments, the lr
//   table, the loss scale): all updated in place.
// Past `max_graphs` shapes, or on the CPU where there is nothing to capture, the
// same static-buffer body runs eagerly (the CPU is how the tests check it).
// Memory, as torch.cuda.graphs keeps it: every warm-up and capture runs on one side
// stream (the caching allocator keeps freed blocks per stream: a new stream each
// time held a step's activations once per warm-up), the graphs share one memory
// pool (one graph replays at a time and none leaves a tensor live between replays
// but its outputs, which stay reserved), and the warm-ups' cached blocks go back to
// the driver before a capture takes its own.
#pragma once

#include "model/model.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace runner {

class StepGraphs {
 public:
  using Body = std::function<std::vector<torch::Tensor>(const ModelBatch& static_inputs)>;
  // capture: false runs every step eagerly through the static buffers.
  StepGraphs(bool capture, int max_graphs = 8, int warmup_steps = 3);
  ~StepGraphs();

  // Runs `body` on `batch` copied into its shape's static buffers, through the
  // shape's graph once captured. nullopt when the shape has no buffers and no
  // room for more: the caller runs the step its usual way.
  std::optional<std::vector<torch::Tensor>> run(const ModelBatch& batch, const Body& body);
  int captured() const;  // graphs captured so far

 private:
  struct Shape;
  Shape* shape_of(const ModelBatch& batch);
  std::vector<torch::Tensor> warm_up(Shape& s, const Body& body);
  std::vector<torch::Tensor> capture(Shape& s, const Body& body);

  bool capture_;
  int max_graphs_, warmup_steps_;
  struct Device;                    // the side stream and the shared pool (CUDA builds)
  std::unique_ptr<Device> device_;
  std::map<std::pair<int64_t, int64_t>, std::unique_ptr<Shape>> shapes_;
};

}  // namespace runner
