// The three runs a data-parallel equivalence test compares (equivalence.h),
// each writing its gradients: 1 worker x batch 16, 1 worker x batch 8 x
// grad_accum 2, and `runner launch` with 2 workers x batch 8.
#pragma once

#include "equivalence.h"
#include "toy_ranks.h"

#include "model/model_factory.h"

#include "catch.h"

#include <filesystem>
#include <functional>
#include <string>

namespace runner::test {

inline std::string traced_sets(const std::string& dir, int per_rank_batch, int grad_accum) {
  return " --set run.output_dir=" + dir + "/runs --set run.threads=1 --set data.cache_dir=" + dir + "/cache" +
         " --set data.train_batch_size=" + std::to_string(per_rank_batch) +
         " --set train.grad_accum=" + std::to_string(grad_accum);
}

// A final/ folder's parameters as the model names them.
inline TensorMap final_parameters(const std::string& final_dir) {
  TensorMap out;
  for (const auto& p : runner::load_model_folder(final_dir).model->named_parameters())
    out[p.key()] = p.value().detach().clone();
  return out;
}

struct TracedRun {
  std::string recipe, name;  // the recipe and its run.name
  int steps = 0;             // the optimizer steps each run must take
  // The final weights compared; default: final/'s parameters as the model names them.
  std::function<TensorMap(const std::string& final_dir)> final_weights = final_parameters;
};

// The run of `spec` in `dir`, its gradients in dir/gradients: 2 workers x batch 8
// with `launch`, else 1 worker x batch 16 / grad_accum. `env` precedes the command.
inline RunTrace traced_run(const TracedRun& spec, const std::string& dir, bool launch, int grad_accum = 1,
                           const std::string& env = "") {
  const std::string grads = "RUNNER_TEST_GRADIENT_DIR=" + dir + "/gradients " + env + " ";
  std::filesystem::create_directories(dir + "/gradients");
  auto r = launch ? run_command(grads + runner_exe() + " launch --nproc-per-node 2 --master-port " +
                                std::to_string(free_port()) + " " + spec.recipe + traced_sets(dir, 8, 1))
                  : run_command(grads + runner_exe() + " run " + spec.recipe +
                                traced_sets(dir, 16 / grad_accum, grad_accum));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  const std::string run = only_run_dir(dir, spec.name);
  RunTrace t;
  t.losses = step_losses(run);
  t.gradients = step_gradients(dir + "/gradients");
  t.weights = spec.final_weights(run + "/final");
  REQUIRE(t.losses.size() == size_t(spec.steps));
  REQUIRE(t.gradients.size() == size_t(spec.steps));
  return t;
}

}  // namespace runner::test
