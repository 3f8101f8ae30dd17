// Everything a run needs to continue exactly where it stopped, as ONE versioned
// struct saved and loaded as a whole. A checkpoint directory holds it as
// state.json (scalars), model.safetensors, optimizer.safetensors and
// rng.safetensors, plus the manifest written by checkpoint_io.
#pragma once

#include "optim/loss_scaler.h"
#include "optim/optimizer.h"
#include "train/best_metric.h"
#include "train/checkpoint_io.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace runner {

struct TrainingState {
  static constexpr int kFormatVersion = 1;

  TensorMap model;       // parameters and persistent buffers by name
  // Set when `model` holds only the trainable parameters (a LoRA run over
  // pretrained weights): the sha256 of the frozen ones (model/base_weights.h),
  // kept in model.safetensors' metadata. Empty: `model` holds every tensor.
  std::string base_weights_sha256;
  std::string origin;    // the checkpoint directory it was read from; empty for a live state
  TensorMap optimizer;   // Optimizer::state()
  long long global_step = 0;     // optimizer windows completed (skipped fp16 steps included)
  long long scheduler_step = 0;  // steps the schedule advanced (skipped fp16 steps excluded)
  long long epoch = 0;           // epoch in progress, 0-based
  long long batch_in_epoch = 0;  // micro-batches of this epoch already consumed
  long long samples_seen = 0;
  LossScalerState loss_scaler;
  nlohmann::json sampler = nlohmann::json::object();  // the sampler's own state
  torch::Tensor cpu_rng;                               // default CPU generator state (rank 0's)
  // Ranks 1.. of a data-parallel run: each draws its own dropout masks from its
  // own generator, so each continues from its own state.
  std::vector<torch::Tensor> rank_cpu_rng;
  std::vector<torch::Tensor> cuda_rng;                 // one per CUDA device, if any
  BestMetricState best;
  int world_size = 1;
  // The rest of the batch topology (the per-worker batch is in `sampler`) and the
  // epoch's length in steps, so that a resume on another worker count can check
  // that it keeps the global batch. 0: not recorded (checkpoints before them).
  long long grad_accum = 0;
  long long steps_per_epoch = 0;
  // Running sums of the logging interval not yet reported, so logs after a resume
  // match an uninterrupted run.
  nlohmann::json pending_log = nlohmann::json::object();
};

// Captures / restores the process-wide random generators (CPU, and CUDA when
// present); `rank` picks that rank's CPU state when the checkpoint has it.
void capture_rng(TrainingState& s);
void restore_rng(const TrainingState& s, int rank = 0);

// The checkpoint's files; their large parts are views of the state's tensors
// (of copies where a tensor is not a contiguous CPU one), kept alive by the files.
std::vector<CheckpointFile> encode_training_state(const TrainingState& s);
// Reads a verified checkpoint directory; throws InputError naming the file on a
// version or format mismatch.
TrainingState load_training_state(const std::string& checkpoint_dir);

}  // namespace runner
