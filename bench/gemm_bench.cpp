// bench/gemm_bench: the Linear layers' product through model/dense.h (oneDNN's
// sgemm for the forward and the input's gradient) against torch::linear
// (LibTorch's mm on OpenBLAS here), forward and backward, on the encoders'
// shapes at MRPC's batch of 32 (about 1,700 real tokens with WordPiece,
// 2,700 with the new families' test tokenizers), rounds alternating, every
// core. Prints each row as soon as it has it: the best round's milliseconds
// of each side and the ratio (linear / dense; above 1: dense is faster).
//
//   gemm_bench [--rounds 7] [--repeats 5]
#include "model/dense.h"

#include "bench_timing.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

namespace {

struct Shape {
  const char* name;
  int64_t tokens, in, out;
};

// Seconds of one forward and backward of y = x W^T + b through `linear`.
double step_seconds(const std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&,
                                                      const torch::Tensor&)>& linear,
                    const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                    const torch::Tensor& upstream, int repeats) {
  const auto start = bench::Clock::now();
  for (int i = 0; i < repeats; ++i) {
    auto y = linear(x, w, b);
    y.backward(upstream);
  }
  return bench::seconds_between(start, bench::Clock::now()) / repeats;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 7, repeats = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
  }
  const std::vector<Shape> shapes = {
      {"BERT-Mini q/k/v fused [1700 x 256] -> 768", 1700, 256, 768},
      {"BERT-Mini FFN in [1700 x 256] -> 1024", 1700, 256, 1024},
      {"BERT-Mini FFN out [1700 x 1024] -> 256", 1700, 1024, 256},
      {"MiniLM FFN in [1700 x 384] -> 1536", 1700, 384, 1536},
      {"MiniLM FFN out [1700 x 1536] -> 384", 1700, 1536, 384},
      {"ModernBERT Wqkv / Wi [2700 x 256] -> 768", 2700, 256, 768},
      {"ModernBERT MLP Wo [2700 x 384] -> 256", 2700, 384, 256},
  };
  at::set_num_threads(static_cast<int>(std::thread::hardware_concurrency()));  // every core, as the runner
  torch::manual_seed(1);
  fmt::print("gemm_bench: {} threads; best of {} rounds of {} forward+backward each\n", at::get_num_threads(),
             rounds, repeats);
  fmt::print("{:<44} | {:>10} | {:>10} | {:>6}\n", "shape", "linear ms", "dense ms", "ratio");
  for (const auto& s : shapes) {
    auto x = torch::randn({s.tokens, s.in}).requires_grad_(true);
    auto w = (torch::randn({s.out, s.in}) * 0.05).requires_grad_(true);
    auto b = torch::zeros({s.out}).requires_grad_(true);
    auto upstream = torch::randn({s.tokens, s.out});
    double linear = 1e9, dense = 1e9;
    for (int r = 0; r < rounds; ++r) {
      linear = std::min(linear, step_seconds(torch::linear, x, w, b, upstream, repeats));
      dense = std::min(dense, step_seconds(runner::dense, x, w, b, upstream, repeats));
    }
    fmt::print("{:<44} | {:>10.3f} | {:>10.3f} | {:>5.2f}x{}\n", s.name, 1e3 * linear, 1e3 * dense, linear / dense,
               runner::dense_on_onednn(x, w) ? "" : "  (no oneDNN here: both are torch::linear)");
    std::fflush(stdout);
  }
}
