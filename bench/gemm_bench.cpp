// bench/gemm_bench: the Linear layers' product through model/dense.h (oneDNN's
// sgemm for the forward and the input's gradient) against torch::linear
// (LibTorch's mm on OpenBLAS here), forward and backward, on the encoders'
// shapes at MRPC's batch of 32 (about 1,700 real tokens with WordPiece,
// 2,700 with the new families' test tokenizers), rounds alternating, every
// core. Prints each row as soon as it has it: the best round's milliseconds
// of each side and the ratio (linear / dense; above 1: dense is faster).
//
//   gemm_bench [--rounds 7] [--repeats 5]
//   gemm_bench --ceiling
//
// --ceiling prints, as one JSON line, the machine's fp32 GEMM ceiling as
// bench/peer_ab.sh takes shares of it: the best FLOP/s of a square 2048 product
// that any library in this process reaches (oneDNN's dnnl_sgemm and the BLAS's
// cblas_sgemm, found by their C names and listed with the file that holds them,
// and LibTorch's mm), with each library's own best.
#include "model/dense.h"

#include "bench_timing.h"

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
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

using DnnlSgemm = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                          int64_t, float, float*, int64_t);
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                            float*, int);

// "dnnl_sgemm (x86_64-linux-gnu/libdnnl.so.2)": a symbol and the shared object it comes from.
std::string named_by_file(const char* symbol, void* address) {
  Dl_info info{};
  if (!dladdr(address, &info) || !info.dli_fname) return symbol;
  // The real file: Debian's libblas.so.3 is a link to the BLAS picked by update-alternatives.
  std::error_code ec;
  const std::filesystem::path file = std::filesystem::canonical(info.dli_fname, ec);
  if (ec) return fmt::format("{} ({})", symbol, info.dli_fname);
  return fmt::format("{} ({}/{})", symbol, file.parent_path().filename().string(), file.filename().string());
}

// The best of 6 timings of `product`, as FLOP/s of an n x n x n product.
double best_flops(int64_t n, const std::function<void()>& product) {
  double best = 1e30;
  for (int i = 0; i < 6; ++i) {
    const auto start = bench::Clock::now();
    product();
    best = std::min(best, bench::seconds_between(start, bench::Clock::now()));
  }
  return 2.0 * double(n) * double(n) * double(n) / best;
}

int print_ceiling() {
  at::set_num_threads(static_cast<int>(std::thread::hardware_concurrency()));
  const int64_t n = 2048;
  torch::manual_seed(1);
  auto a = torch::randn({n, n}), b = torch::randn({n, n}), c = torch::empty({n, n});
  const float *pa = a.data_ptr<float>(), *pb = b.data_ptr<float>();
  float* pc = c.data_ptr<float>();
  std::map<std::string, double> by_library;
  by_library["libtorch_mm"] = best_flops(n, [&] { torch::mm_out(c, a, b); });
  if (auto dnnl = reinterpret_cast<DnnlSgemm>(dlsym(RTLD_DEFAULT, "dnnl_sgemm")))
    by_library[named_by_file("dnnl_sgemm", reinterpret_cast<void*>(dnnl))] = best_flops(n, [&] { dnnl('N', 'N', n, n, n, 1.0f, pa, n, pb, n, 0.0f, pc, n); });
  if (auto cblas = reinterpret_cast<CblasSgemm>(dlsym(RTLD_DEFAULT, "cblas_sgemm"))) {
    const int row_major = 101, no_trans = 111, m = static_cast<int>(n);  // CBLAS' enum values
    by_library[named_by_file("cblas_sgemm", reinterpret_cast<void*>(cblas))] =
        best_flops(n, [&] { cblas(row_major, no_trans, no_trans, m, m, m, 1.0f, pa, m, pb, m, 0.0f, pc, m); });
  }
  std::string best_name;
  double best = 0;
  std::string listed;
  for (const auto& [name, flops] : by_library) {
    listed += fmt::format("{}\"{}\": {:.6g}", listed.empty() ? "" : ", ", name, flops);
    if (flops > best) best = flops, best_name = name;
  }
  fmt::print("{{\"fp32\": {:.6g}, \"bf16\": null, \"fp32_from\": \"{}\", \"by_library\": {{{}}}}}\n", best,
             best_name, listed);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && !std::strcmp(argv[1], "--ceiling")) return print_ceiling();
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
