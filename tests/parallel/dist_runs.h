// What the end-to-end data-parallel tests share: the smoke recipe cut to 64
// MRPC pairs with no dropout, so that runs of different worker counts are the
// same computation up to float summation order (reading a run back: run_files.h).
#pragma once

#include "run_files.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <string>

namespace runner::test {

inline std::string dist_recipe() { return source_dir() + "/recipes/smoke/mrpc_smoke.toml"; }

// 64 MRPC pairs, 2 epochs, a loss logged every step, no dropout, one thread.
inline std::string dist_sets(const std::string& dir, int per_rank_batch, int grad_accum) {
  return " --set run.output_dir=" + dir + "/runs --set run.threads=1" +
         " --set data.max_train_examples=64 --set data.max_eval_examples=128" +
         " --set data.eval_batch_size=32 --set data.train_batch_size=" + std::to_string(per_rank_batch) +
         " --set train.grad_accum=" + std::to_string(grad_accum) +
         " --set train.epochs=2 --set train.log_every=1 --set model.hidden_dropout_prob=0" +
         " --set model.attention_probs_dropout_prob=0 --set model.classifier_dropout=0";
}

}  // namespace runner::test
