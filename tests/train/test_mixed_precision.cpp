// Mixed precision trains the model it runs. Autocast keeps a cache of
// the bf16 copy of every weight until its outermost region ends, and the
// optimizer's in-place update does not invalidate it: a region left open across
// steps runs every later forward, and the in-training evaluations, on stale
// weights. These tests train the golden trajectory loop (golden_loop.h) in bf16.
#include "golden_loop.h"
#include "train/autocast.h"

#include <cmath>

using namespace runner;
using namespace runner::test;

namespace {

// bf16 keeps 8 significant bits: each rounding of a value is off by at most
// 2^-9 of it, and a product of two rounded inputs by 2 x 2^-9 = 2^-8.
constexpr double kBf16Product = 1.0 / 256;

// Two correct bf16 implementations round at different places (torch 1.13 vs
// 2.x, oneDNN's AMX vs AVX-512 kernels, which ops autocast casts): a loss or a
// gradient norm, smooth functions of the products' results, may differ by up to
// the forward's bound below relative. Measured between such variants of the
// golden itself (tests/train/golden/README.md): at most 1.8e-2 on losses and
// 2.6e-2 on gradient norms; the stale-weights defect: up to 1.2 and 2.0.

// A bound on the error in the logits of a forward that runs its matmuls in bf16:
// tiny_bert's path from the embeddings to a logit crosses 2 layers of 8 matmuls
// (q, k, v, scores, context, output, FFN in, FFN out) plus the pooler and the
// classifier, 18 products of rounded inputs; to first order their relative
// errors add. LayerNorm renormalises after each layer, so this overestimates.
constexpr double kBf16LogitRelative = 18 * kBf16Product;

// How far the mean loss of `model` on `eval` may move between fp32 and bf16,
// given how far its logits move (d_i = max_c |z_bf16 - z_fp32| of example i):
// cross-entropy's gradient in the logits is p - y, whose entries add up to at
// most 2 (1 - p_y) in absolute value, and its Hessian's norm is at most 1/2, so
// example i's loss moves by at most 2 (1 - p_y) d_i + d_i^2 / 4.
double loss_bound_from_logits(TaskModel& model, const EvalSet& eval) {
  torch::NoGradGuard no_grad;
  model.eval();
  double sum = 0;
  long long examples = 0;
  for (const auto& b : eval.batches) {
    torch::Tensor fp32 = model.forward(b.tensors).logits, bf16;
    {
      AutocastGuard autocast(Precision::Bf16, c10::DeviceType::CPU);
      bf16 = model.forward(b.tensors).logits.to(torch::kFloat32);
    }
    torch::Tensor d = (bf16 - fp32).abs().amax(1);
    torch::Tensor p_y = fp32.softmax(-1).gather(1, b.tensors.labels.unsqueeze(1)).squeeze(1);
    sum += (2 * (1 - p_y) * d + d * d / 4).sum().item<double>();
    examples += b.examples;
  }
  model.train();
  return sum / static_cast<double>(examples);
}

nlohmann::json golden_bf16() {
  std::ifstream in(source_dir() + "/tests/train/golden/trajectory_bf16_cpu.json");
  return nlohmann::json::parse(in);
}

double rel(double got, double want) { return std::abs(got - want) / std::abs(want); }

// The golden loop trained in bf16 with its dev set evaluated after step 20, and
// a fresh model holding the trained weights.
struct Bf16Run {
  EvalSet dev = golden_dev_set();
  GoldenData data = golden_train_data(8);
  GoldenLoopResult r = run_golden_loop(GoldenLoop{8, 1, Precision::Bf16, &dev}, data);
  double in_training() const { return r.eval_events.at(0).at("loss"); }
};

}  // namespace

TEST_CASE("bf16 training follows Accelerate's mixed_precision=\"bf16\" trajectory", "[train][mixed_precision]") {
  const nlohmann::json golden = golden_bf16();
  Bf16Run run;
  const GoldenLoopResult& r = run.r;
  const auto& steps = golden.at("steps");
  REQUIRE(r.train_events.size() == steps.size());
  double worst_loss = 0, worst_norm = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& e = r.train_events[i];
    const double loss = rel(e.at("loss"), steps[i].at("loss")),
                 norm = rel(e.at("grad_norm"), steps[i].at("grad_norm_preclip"));
    INFO("step " << i + 1 << ": loss " << e["loss"] << " vs " << steps[i]["loss"] << ", grad norm "
                 << e["grad_norm"] << " vs " << steps[i]["grad_norm_preclip"]);
    CHECK(loss <= kBf16LogitRelative);
    CHECK(norm <= kBf16LogitRelative);
    CHECK(e.at("lr").get<double>() == Approx(steps[i].at("lr").get<double>()).epsilon(1e-6).margin(1e-12));
    worst_loss = std::max(worst_loss, loss), worst_norm = std::max(worst_norm, norm);
  }
  // Accelerate's prepared model evaluates under its autocast, as the runner does.
  const double dev_loss = golden.at("dev_eval").at("autocast").at("mean_loss");
  REQUIRE(r.eval_events.size() == 1);
  CHECK(rel(r.eval_events[0].at("loss"), dev_loss) <= kBf16LogitRelative);
  WARN("bf16 vs Accelerate: worst step loss " << worst_loss << ", grad norm " << worst_norm
       << " relative (bound " << kBf16LogitRelative << "); dev loss " << r.eval_events[0]["loss"]
       << " vs " << dev_loss);
}

TEST_CASE("bf16: the in-training evaluation equals a fresh evaluation of the trained weights",
          "[train][mixed_precision]") {
  Bf16Run run;
  REQUIRE(run.r.eval_events.size() == 1);
  REQUIRE(run.r.eval_events[0]["step"] == 20);
  const double in_training = run.in_training();
  nlohmann::json again = evaluate_with(fresh_copy(*run.r.model), Precision::Bf16, run.dev);
  INFO("in-training bf16 loss " << in_training << ", fresh bf16 evaluation " << again["loss"]);
  // The same weights, batches, ops and precision on one thread: the same numbers.
  // An evaluation on stale autocast weights (those of step 1) differs.
  CHECK(again["loss"].get<double>() == in_training);
  CHECK(again["accuracy"] == run.r.eval_events[0]["accuracy"]);
}

TEST_CASE("bf16: the trained weights evaluated in fp32 agree with the in-training evaluation",
          "[train][mixed_precision]") {
  Bf16Run run;
  REQUIRE(run.r.eval_events.size() == 1);
  const double in_training = run.in_training();
  auto fresh = fresh_copy(*run.r.model);
  const double fp32 = evaluate_with(fresh, Precision::Fp32, run.dev)["loss"];
  // The logits of these weights in bf16 and fp32 decide how far apart the two
  // losses may be; the in-training evaluation must be one of them.
  const double bound = loss_bound_from_logits(*fresh, run.dev);
  INFO("in-training bf16 loss " << in_training << ", fp32 evaluation " << fp32 << ", bound " << bound);
  CHECK(std::abs(in_training - fp32) <= bound);
}
