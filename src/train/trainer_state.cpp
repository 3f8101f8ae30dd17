// The trainer's saved state: capture / resume, and the hand-over of checkpoints
// to the Checkpointer (the trainer never touches a file).
#include "model/host_read.h"
#include "registry/registry.h"
#include "train/interrupt.h"
#include "train/metric.h"
#include "train/trainer.h"
#include "train/trainer_interval.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

namespace runner {

namespace {

TensorMap model_tensors(torch::nn::Module& m) {
  TensorMap out;
  for (const auto& p : m.named_parameters()) out[p.key()] = p.value().detach();
  for (const auto& b : m.named_buffers()) out[b.key()] = b.value().detach();
  return out;
}

void copy_into(const std::string& name, torch::Tensor target, const TensorMap& saved) {
  auto it = saved.find(name);
  if (it == saved.end() || it->second.sizes() != target.sizes())
    throw InputError(make_error({}, "",
                                fmt::format("checkpoint model state has no tensor '{}' of shape {}",
                                            name, fmt::join(target.sizes().vec(), "x")),
                                "resume with the recipe the run was started with"));
  target.copy_(it->second);
}

}  // namespace

TrainingState Trainer::capture_state() const {
  TrainingState s = live_state();
  for (auto& [name, t] : s.model) t = t.clone();
  return s;
}

TrainingState Trainer::live_state() const {
  TrainingState s = state_;
  s.model = model_tensors(*model_);
  s.optimizer = parallel_ ? parallel_->full_optimizer_state(optimizer_->state()) : optimizer_->state();
  s.loss_scaler = scaler_.state();
  s.sampler = data_.state();
  capture_rng(s);
  if (parallel_) {  // every rank's generator: rank 0 writes them all
    std::vector<torch::Tensor> all = parallel_->gather_from_all(s.cpu_rng);
    s.rank_cpu_rng.assign(all.begin() + 1, all.end());
  }
  s.pending_log = interval_record();
  return s;
}

// As of the last settle: a checkpoint follows one (Trainer::save_checkpoint).
// "steps" counts every step of the interval, "loss_steps" those whose loss
// counted; "train_s" is the interval's training time so far.
nlohmann::json Trainer::interval_record() const {
  const Interval& iv = *interval_;
  nlohmann::json p = {{"loss_sum", iv.settled.loss_sum}, {"loss_steps", iv.settled.loss_steps},
                      {"steps", iv.steps},          {"samples", iv.samples},
                      {"tokens", iv.tokens},        {"lr", iv.settled.lr},
                      {"train_s", iv.trained_seconds(iv.step_ended)}};
  if (iv.settled.grad_norm) p["grad_norm"] = *iv.settled.grad_norm;
  return p;
}

// Checkpoints before "loss_steps" wrote the count of counted steps as "steps",
// a float, which reads as that count for both.
void Trainer::restore_interval(const nlohmann::json& p, const BatchTopology& then, const BatchTopology& now) {
  Interval& iv = *interval_;
  auto on_device = torch::TensorOptions().dtype(torch::kFloat64).device(device_);
  iv.settled.loss_sum = record_number(p, "loss_sum", 0.0);
  iv.settled.loss_steps = record_number(p, "loss_steps", record_number(p, "steps", 0.0));
  iv.loss_sum = torch::full({}, iv.settled.loss_sum, on_device);
  iv.loss_steps = torch::full({}, iv.settled.loss_steps, on_device);
  iv.steps = record_integer(p, "steps", static_cast<long long>(iv.settled.loss_steps));
  // Per-worker counts: the interval's share of each worker changes with their number.
  iv.samples = record_integer(p, "samples", 0) * then.world / now.world;
  iv.tokens = record_integer(p, "tokens", 0) * then.world / now.world;
  iv.settled.lr = record_number(p, "lr", 0.0);
  iv.lr = torch::full({}, iv.settled.lr, on_device);
  iv.carried_s = record_number(p, "train_s", 0.0);
  if (p.contains("grad_norm") && p["grad_norm"].is_number()) {
    iv.settled.grad_norm = p["grad_norm"].get<double>();
    iv.grad_norm = torch::full({}, *iv.settled.grad_norm, on_device);
  }
}

// The checkpoint's split of the global batch and this run's; a checkpoint
// without the batch size or accumulation recorded is taken to have this run's.
std::pair<BatchTopology, BatchTopology> Trainer::topologies(const TrainingState& s) const {
  BatchTopology now{parallel_ ? parallel_->world_size() : 1, record_integer(data_.state(), "batch_size", 1),
                    config_.grad_accum};
  BatchTopology then{s.world_size, record_integer(s.sampler, "batch_size", now.rank_batch),
                     s.grad_accum > 0 ? s.grad_accum : now.grad_accum};
  return {then, now};
}

// Another split of the same global batch continues the same global order from
// the same position (train/batch_topology.h); any other change is refused.
void Trainer::check_topology(const TrainingState& s, const BatchTopology& then,
                             const BatchTopology& now) const {
  if (then == now) return;
  if (auto error = topology_change_error(then, now)) throw InputError(*error);
  if (s.steps_per_epoch > 0 && s.steps_per_epoch != steps_per_epoch())
    throw InputError(make_error(
        {}, "topology",
        fmt::format("an epoch has {} optimizer steps under {}, and had {} under {} (data.drop_last "
                    "drops a different remainder), so the schedule would change",
                    steps_per_epoch(), now.str(), s.steps_per_epoch, then.str()),
        "resume with the topology that wrote the checkpoint, or set data.drop_last = false"));
}

// The checkpoint's position must lie inside this run's schedule: a state edited
// past it would end "completed" at once with the checkpoint's weights as final.
void Trainer::check_progress(const TrainingState& s, long long position) const {
  std::string problem;
  if (s.global_step > total_steps_)
    problem = fmt::format("the checkpoint is at optimizer step {}, past this run's {} steps", s.global_step,
                          total_steps_);
  else if (position > 0 && position >= data_.batches_per_epoch())
    problem = fmt::format("the checkpoint is at batch {} of an epoch of {} batches", position,
                          data_.batches_per_epoch());
  if (problem.empty()) return;
  throw InputError(make_error({}, "train", problem,
                              "resume from another checkpoint, or with the recipe the run was started with"));
}

void Trainer::resume(const TrainingState& s) {
  const auto [then, now] = topologies(s);
  check_topology(s, then, now);
  const long long position = convert_batch_in_epoch(s.batch_in_epoch, then, now);
  check_progress(s, position);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model_->named_parameters()) copy_into(p.key(), p.value(), s.model);
    for (auto& b : model_->named_buffers()) copy_into(b.key(), b.value(), s.model);
  }
  optimizer_->load_state(parallel_ ? parallel_->local_optimizer_state(s.optimizer) : s.optimizer);
  scaler_.load_state(s.loss_scaler);
  data_.load_state(s.sampler);
  restore_rng(s, parallel_ ? parallel_->rank() : 0);
  state_ = s;
  state_.model.clear();
  state_.optimizer.clear();
  state_.batch_in_epoch = position;
  state_.world_size = static_cast<int>(now.world);
  state_.grad_accum = now.grad_accum;
  state_.steps_per_epoch = steps_per_epoch();
  restore_interval(s.pending_log, then, now);
  schedule_.refill(state_.scheduler_step, loop_.settle_capacity(), device_);
}

std::string Trainer::save_checkpoint() {
  if (config_.checkpoints_dir.empty()) return {};
  if (unsettled_steps_ > 0 || !pending_.empty()) settle();
  std::string path = config_.checkpoints_dir + "/" + checkpoint_name(state_.global_step);
  // Every rank enters (the state capture may gather a sharded optimizer); rank 0 writes.
  TrainingState live = live_state();
  loop_.checkpoint_taken(std::chrono::steady_clock::now());
  if (writes_files()) {
    if (!checkpointer_)
      checkpointer_ = std::make_unique<Checkpointer>(config_.checkpoints_dir, config_.keep_last, checkpoint_hook_);
    const std::string best = state_.best.has_best ? state_.best.checkpoint : std::string();
    emit(checkpointer_->save(live, best).event());
  }
  if (parallel_) parallel_->barrier("waiting for rank 0 to take a checkpoint");
  return path;
}

void Trainer::report_written_checkpoints() {
  if (!checkpointer_) return;
  for (const CheckpointWritten& w : checkpointer_->take_finished()) emit(w.event());
}

// A second SIGINT or SIGTERM while the last write finishes abandons it: the
// previous checkpoint stays the newest valid one.
void Trainer::end_checkpoints(bool failed) {
  if (!checkpointer_) return;
  Checkpointer::Final f = checkpointer_->finalize([] { return interrupt_count() > 1; });
  for (const CheckpointWritten& w : f.written) emit(w.event());
  if (f.end != CheckpointEnd::Idle)
    emit({{"event", "checkpoint_end"}, {"write_in_flight", checkpoint_end_name(f.end)},
          {"run", failed ? "failed" : "ended"}});
  if (f.failure && !failed) std::rethrow_exception(f.failure);
}

}  // namespace runner
