// Whether a data-parallel run trained like a single process, judged against the
// single process's own summation-order noise. Three runs from the same seed:
//   single     1 worker x batch 16
//   reference  1 worker x batch 8 x grad_accum 2: the same 16 examples per step,
//              summed as two halves whose products have a data-parallel worker's
//              shapes, so it differs from `single` only in float summation order
//   candidate  the run under test (2 workers x batch 8, ...)
// The candidate's distance from `single` (a norm per step and tensor) may be at
// most kNoiseRatio times the reference's, plus the roundings a correct result
// may differ by. The reference runs the same kernels on this CPU as on any
// other, so the bound grows and shrinks with the CPU's own rounding instead of
// holding a figure measured on one machine.
#pragma once

#include "train/tensor_file.h"
#include "util/synced_file.h"

#include "run_files.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace runner::test {

// float32's unit roundoff, 2^-24: one rounding moves a value by at most u of itself.
constexpr double kFloatRoundoff = 1.0 / (1 << 24);
// Each distance is the norm of many independent roundings of terms of the same
// sizes (the same examples, reduced over the same lengths), and two such norms
// agree to a small factor: their spread shrinks as 1/sqrt(elements), widest for
// a tensor of two elements. The candidate's largest ratio measured over three
// families is 3.5; 16 leaves room for the spread of the smallest tensors, while
// a worker's gradient off by 1e-4 of itself puts the candidate over a hundred times
// the reference away (the mutation case of test_dist_new_families.cpp).
constexpr double kNoiseRatio = 16.0;

// What a run leaves for the comparison: its per-step losses (train events),
// the gradients each step updated with (RUNNER_TEST_GRADIENT_DIR, run/test_hooks.h)
// and its final weights.
struct RunTrace {
  std::vector<double> losses;
  std::vector<TensorMap> gradients;  // step 1, 2, ...; empty without a gradient folder
  TensorMap weights;
};

inline std::vector<double> step_losses(const std::string& run_dir) {
  std::vector<double> out;
  for (const auto& e : events(run_dir, "train")) out.push_back(e["loss"].get<double>());
  return out;
}

inline std::vector<TensorMap> step_gradients(const std::string& folder) {
  std::vector<TensorMap> out;
  for (int step = 1;; ++step) {
    const std::string path = folder + "/step-" + std::to_string(step) + ".safetensors";
    if (!std::filesystem::exists(path)) break;
    TensorMap g = decode_tensors(read_file_bytes(path), path);
    g.erase("@lr");
    out.push_back(std::move(g));
  }
  return out;
}

class EquivalenceCheck {
 public:
  // Records a violation when |candidate - single| > kNoiseRatio x noise + floor in
  // the Frobenius norm, where noise is |reference - single|, at least
  // `pooled_noise` of |single| (the whole group's relative noise: a tensor whose
  // reference happened to round like the single run still has that run's noise),
  // and floor is `floor_roundings` roundings of |single| (how far two correct
  // results may round apart even where the reference did not).
  void compare(const std::string& what, const torch::Tensor& single, const torch::Tensor& reference,
               const torch::Tensor& candidate, double floor_roundings = 1.0, double pooled_noise = 0.0) {
    const torch::Tensor s = single.to(torch::kFloat64);
    const double size = s.norm().item<double>();
    const double noise = std::max((reference.to(torch::kFloat64) - s).norm().item<double>(), pooled_noise * size);
    const double off = (candidate.to(torch::kFloat64) - s).norm().item<double>();
    const double bound = kNoiseRatio * noise + floor_roundings * kFloatRoundoff * size;
    ++compared_;
    if (noise > 0) worst_ratio_ = std::max(worst_ratio_, off / noise);
    if (off <= bound) return;
    std::ostringstream line;
    line << what << ": " << off << " from the single run, bound " << bound << " (reference's distance " << noise
         << ")";
    violations_.push_back(line.str());
  }

  // Every tensor the candidate has (a ZeRO-1 rank 0 writes its own shard's
  // gradients only), each by itself, with the group's pooled relative noise.
  void compare_maps(const std::string& what, const TensorMap& single, const TensorMap& reference,
                    const TensorMap& candidate, double floor_roundings = 1.0) {
    double noise2 = 0, size2 = 0;
    for (const auto& [name, c] : candidate)
      if (single.count(name) && reference.count(name)) {
        const torch::Tensor s = single.at(name).to(torch::kFloat64);
        noise2 += (reference.at(name).to(torch::kFloat64) - s).pow(2).sum().item<double>();
        size2 += s.pow(2).sum().item<double>();
      }
    const double pooled = size2 > 0 ? std::sqrt(noise2 / size2) : 0.0;
    for (const auto& [name, c] : candidate) {
      if (!single.count(name) || !reference.count(name)) {
        violations_.push_back(what + " " + name + ": missing from the single or reference run");
        continue;
      }
      compare(what + " " + name, single.at(name), reference.at(name), c, floor_roundings, pooled);
    }
  }

  // Losses, each step's gradients and the final weights. `examples` is the
  // number of examples a step's loss averages.
  void compare_runs(const RunTrace& single, const RunTrace& reference, const RunTrace& candidate, int examples) {
    if (single.losses.size() != candidate.losses.size() || reference.losses.size() != candidate.losses.size()) {
      violations_.push_back("the runs logged different numbers of steps");
      return;
    }
    compare("losses", torch::tensor(single.losses, torch::kFloat64), torch::tensor(reference.losses, torch::kFloat64),
            torch::tensor(candidate.losses, torch::kFloat64), examples);
    if (single.gradients.size() != candidate.gradients.size() ||
        reference.gradients.size() != candidate.gradients.size())
      violations_.push_back("the runs wrote gradients for different numbers of steps");
    else
      for (size_t t = 0; t < candidate.gradients.size(); ++t)
        compare_maps("step " + std::to_string(t + 1) + " gradient of", single.gradients[t], reference.gradients[t],
                     candidate.gradients[t]);
    // Each step's update may round the other way in either run: 2 roundings a step.
    compare_maps("final weight", single.weights, reference.weights, candidate.weights,
                 2.0 * static_cast<double>(candidate.losses.size()));
  }

  const std::vector<std::string>& violations() const { return violations_; }
  size_t compared() const { return compared_; }
  // The largest candidate/reference distance ratio seen (for a WARN line).
  double worst_ratio() const { return worst_ratio_; }

 private:
  std::vector<std::string> violations_;
  size_t compared_ = 0;
  double worst_ratio_ = 0;
};

inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace runner::test
