// Loading the golden model_parity inputs and the tiny models (tiny_bert,
// tiny_distilbert, tiny_electra), and the parity checks every family's tests share.
#pragma once

#include "model/bert.h"
#include "model/bert_component.h"
#include "model/model_factory.h"
#include "util/cpu_info.h"
#include "shared.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>
#include "catch.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>

namespace runner::test {

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

inline std::string golden(const std::string& rel) { return shared_dir() + "/golden/" + rel; }

inline torch::Tensor int_matrix(const nlohmann::json& rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows)
    for (const auto& v : r) flat.push_back(v.get<int64_t>());
  return torch::tensor(flat, torch::kInt64).view({static_cast<int64_t>(rows.size()), -1});
}

// model_parity/batch.json: MRPC dev rows 0-3, padded to [4, 74].
inline ModelBatch parity_batch() {
  auto j = read_json(golden("model_parity/batch.json"));
  ModelBatch b;
  b.input_ids = int_matrix(j.at("input_ids"));
  b.token_type_ids = int_matrix(j.at("token_type_ids"));
  b.attention_mask = int_matrix(j.at("attention_mask"));
  b.labels = torch::tensor(j.at("labels").get<std::vector<int64_t>>(), torch::kInt64);
  return b;
}

inline torch::Tensor float_tensor(const nlohmann::json& j) {  // [N] or [N][M] of numbers
  std::vector<double> flat;
  if (j.at(0).is_array()) {
    for (const auto& r : j)
      for (const auto& v : r) flat.push_back(v.get<double>());
    return torch::tensor(flat, torch::kFloat64).view({static_cast<int64_t>(j.size()), -1});
  }
  for (const auto& v : j) flat.push_back(v.get<double>());
  return torch::tensor(flat, torch::kFloat64);
}

// tiny_bert loaded from one of its weight files (or its folder).
inline std::shared_ptr<BertForSequenceClassification> load_tiny_bert(const std::string& weights) {
  return std::dynamic_pointer_cast<BertForSequenceClassification>(
      load_model_folder(golden("tiny_bert"), weights).model);
}

// family_parity/expected_<family>.json (golden README section 4).
inline nlohmann::json family_expected(const std::string& family) {
  return read_json(golden("family_parity/expected_" + family + ".json"));
}

// A golden tiny model folder ("tiny_distilbert") loaded from `weights` (a file or the folder).
inline std::shared_ptr<TaskModel> load_tiny(const std::string& folder, const std::string& weights) {
  return load_model_folder(golden(folder), weights).model;
}

inline double rel_err(double got, double want) { return std::abs(got - want) / std::abs(want); }

inline double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

struct ThreadsGuard {  // the golden files were made single-threaded
  int saved = at::get_num_threads();
  ThreadsGuard() { at::set_num_threads(1); }
  ~ThreadsGuard() { at::set_num_threads(saved); }
};

// torch.autocast("cpu", dtype=torch.bfloat16) for the guard's lifetime. With
// aten_gemm, bf16 matmuls run on ATen's own kernels rather than oneDNN's.
// LibTorch 2.4 deprecated the CPU-only setters (a warning per call) for ones
// taking the device type, as src/train/autocast.cpp does.
struct Bf16Autocast {
  bool mkldnn = at::globalContext().userEnabledMkldnn();
  // aten_gemm=false: the CPU's own choice, or ATen's GEMM where emulation is forced
  // (RUNNER_CPU_BF16=emulated: the path of a CPU without AVX-512, util/cpu_info.h).
  explicit Bf16Autocast(bool aten_gemm) {
    if (aten_gemm || cpu_bf16_emulation_forced()) at::globalContext().setUserEnabledMkldnn(false);
    set_cpu_autocast(true);
  }
  ~Bf16Autocast() {
    set_cpu_autocast(false);
    at::autocast::clear_cache();
    at::globalContext().setUserEnabledMkldnn(mkldnn);
  }
  static void set_cpu_autocast(bool on) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    if (on) at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCPU, on);
#else
    if (on) at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::set_cpu_enabled(on);
#endif
  }
};

// The loaded parameters against an expected file's names, order, shapes, norms and sums.
inline void check_loaded_parameters(TaskModel& model, const nlohmann::json& expected) {
  auto names = expected.at("param_names_in_order").get<std::vector<std::string>>();
  auto params = model.named_parameters();
  REQUIRE(params.size() == names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    REQUIRE(params[i].key() == names[i]);
    const auto& p = params[i].value();
    INFO(names[i]);
    CHECK(p.sizes().vec() == expected.at("param_shapes").at(names[i]).get<std::vector<int64_t>>());
    CHECK(rel_err(p.norm().item<double>(), expected.at("param_l2_norm").at(names[i])) < 1e-6);
    double want_sum = expected.at("param_sum").at(names[i]);
    double sum = p.to(torch::kFloat64).sum().item<double>();
    CHECK(std::abs(sum - want_sum) <= 1e-9 * std::max(1.0, std::abs(want_sum)));
  }
}

// The worst errors that check_forward_backward measured.
struct ParityErrors {
  double logits = 0, loss = 0, worst_grad = 0, global_grad = 0;
  ModelOutput out;  // the forward that was checked
};

// Gradient norms per parameter, relative to Hugging Face's; a gradient that is
// zero in truth (Hugging Face's norm below 1e-6 of the global one) must stay so.
inline double check_gradient_norms(TaskModel& model, const nlohmann::json& expected,
                                   double tolerance, double& global_err) {
  const double global_want = expected.at("grad_global_l2_norm_fp64");
  const double kZeroGradient = 1e-6;
  double global_sq = 0, worst = 0;
  for (const auto& p : model.named_parameters()) {
    double n = p.value().grad().norm().item<double>();
    global_sq += n * n;
    double want = expected.at("grad_l2_norm").at(p.key());
    INFO(p.key() << " gradient norm " << n << ", Hugging Face " << want);
    if (want < kZeroGradient * global_want) {
      // The key bias cannot change the softmax (it adds q.b to every score of a
      // row), so its true gradient is 0 and both sides hold rounding noise.
      CHECK(n < kZeroGradient * global_want);
      continue;
    }
    worst = std::max(worst, rel_err(n, want));
    CHECK(rel_err(n, want) <= tolerance);
  }
  global_err = rel_err(std::sqrt(global_sq), global_want);
  CHECK(global_err <= tolerance);
  return worst;
}

// Eval-mode, padded, single-threaded forward with hidden states and backward
// against an expected file: logits (1e-5 absolute), loss, every gradient norm
// (`grad_tolerance` relative), hidden-state norms and the last [CLS] state.
inline ParityErrors check_forward_backward(TaskModel& model, const nlohmann::json& expected,
                                           const ModelBatch& batch, double grad_tolerance) {
  ThreadsGuard one_thread;
  model.eval();
  model.set_execution(Execution::Padded);
  model.zero_grad();
  ParityErrors e;
  e.out = model.forward(batch, ForwardOptions{true});
  const ModelOutput& out = e.out;
  out.loss.backward();
  e.logits = max_abs_diff(out.logits, float_tensor(expected.at("logits")));
  e.loss = rel_err(out.loss.item<double>(), expected.at("loss"));
  CHECK(e.logits <= 1e-5);
  CHECK(e.loss <= 1e-6);
  e.worst_grad = check_gradient_norms(model, expected, grad_tolerance, e.global_grad);
  const auto& norms = expected.at("hidden_states_l2");
  REQUIRE(out.hidden_states.size() == norms.size());
  for (size_t i = 0; i < norms.size(); ++i)
    CHECK(rel_err(out.hidden_states[i].norm().item<double>(), norms.at(i)) <= 1e-5);
  CHECK(max_abs_diff(out.hidden_states.back().select(1, 0), float_tensor(expected.at("cls_last_hidden"))) <= 1e-5);
  // padding_idx: the [PAD] row of the word embeddings never gets a gradient.
  const torch::Tensor word = model.named_parameters()[expected.at("param_names_in_order").at(0).get<std::string>()];
  CHECK(word.grad()[0].abs().max().item<double>() == 0.0);
  WARN("logits max abs error " << e.logits << ", loss relative error " << e.loss << ", global grad norm "
       << "relative error " << e.global_grad << ", worst per-parameter " << e.worst_grad);
  return e;
}

// Every gradient tensor (run check_forward_backward first) against `grad.<name>`
// of an expected .safetensors, relative to each tensor's largest element; returns the worst.
// A tensor whose true gradient is zero (the attention key biases: q.b is added
// to every score of a row, which softmax ignores) holds rounding noise on both
// sides, of the order of fp32's 2^-24 times the terms that cancelled, so its
// elements are compared with nothing: they are bounded, as check_gradient_norms
// bounds their norm, by 1e-6 of the whole model's gradient norm.
inline double check_gradient_tensors(TaskModel& model, const std::string& expected_safetensors,
                                     double tolerance) {
  auto reference = read_weights(expected_safetensors);
  std::map<std::string, torch::Tensor> ref(reference.begin(), reference.end());
  double global_sq = 0;
  for (const auto& [name, t] : ref)
    if (name.rfind("grad.", 0) == 0) global_sq += std::pow(t.norm().item<double>(), 2);
  const double noise_floor = 1e-6 * std::sqrt(global_sq);
  double worst = 0;
  for (const auto& p : model.named_parameters()) {
    const auto& want = ref.at("grad." + p.key());
    INFO(p.key());
    if (want.norm().item<double>() < noise_floor) {
      CHECK(p.value().grad().abs().max().item<double>() < noise_floor);
      continue;
    }
    double err = max_abs_diff(p.value().grad(), want);
    double scale = std::max(1e-3, want.abs().max().item<double>());
    worst = std::max(worst, err / scale);
    INFO("max abs diff " << err);
    CHECK(err <= tolerance * scale);
  }
  WARN("worst gradient element error relative to the tensor's max: " << worst);
  return worst;
}

// A forward and backward of `model` in `execution` (its own train/eval mode
// and the current generator state) and the model with its gradients.
struct ExecutionRun {
  ModelOutput out;
  std::shared_ptr<TaskModel> model;
};
inline ExecutionRun run_in(std::shared_ptr<TaskModel> model, Execution execution,
                           const ModelBatch& batch) {
  model->set_execution(execution);
  ExecutionRun r{model->forward(batch), model};
  r.out.loss.backward();
  return r;
}

// Unpadded against padded execution of two identical models: logits, pooled
// output and loss, and every gradient within 1e-5 of max(1, its largest
// element). Returns {logits error, worst relative gradient error}.
inline std::pair<double, double> check_unpadded_equals_padded(const ExecutionRun& padded,
                                                              const ExecutionRun& unpadded) {
  double logits_err = max_abs_diff(padded.out.logits, unpadded.out.logits), grad_err = 0;
  CHECK(logits_err <= 1e-5);
  CHECK(max_abs_diff(padded.out.pooled, unpadded.out.pooled) <= 1e-5);
  CHECK(rel_err(unpadded.out.loss.item<double>(), padded.out.loss.item<double>()) <= 1e-6);
  auto pp = padded.model->named_parameters(), up = unpadded.model->named_parameters();
  for (size_t i = 0; i < pp.size(); ++i) {
    INFO(pp[i].key());
    auto g = pp[i].value().grad();
    double scale = std::max(1.0, g.abs().max().item<double>());
    grad_err = std::max(grad_err, max_abs_diff(g, up[i].value().grad()) / scale);
    CHECK(max_abs_diff(g, up[i].value().grad()) <= 1e-5 * scale);
  }
  return {logits_err, grad_err};
}

}  // namespace runner::test
