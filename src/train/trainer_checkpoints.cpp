// The trainer's side of checkpoints: the state it captures and hands to the
// Checkpointer (the trainer never touches a file), and the resume that
// checks a saved state against this run and restores it.
#include "model/base_weights.h"
#include "train/batch_topology.h"
#include "train/trainer.h"
#include "util/diagnostic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>


namespace runner {

namespace {

// Every parameter and buffer, or only the trainable parameters: the frozen
// ones are model.pretrained's, named by their sha256, and the buffers follow
// from the config.
TensorMap model_tensors(torch::nn::Module& m, bool trainable_only) {
  TensorMap out;
  for (const auto& p : m.named_parameters())
    if (!trainable_only || p.value().requires_grad()) out[p.key()] = p.value().detach();
  if (trainable_only) return out;
  for (const auto& b : m.named_buffers()) out[b.key()] = b.value().detach();
  return out;
}

// A checkpoint of the trainable parameters alone continues only over the
// frozen weights it was trained over.
void check_base(const TrainingState& s, const std::string& base_sha256) {
  if (s.base_weights_sha256 == base_sha256) return;
  throw InputError(make_error(
      SourceLocation{s.origin + "/model.safetensors", 0, 0, {}}, "model.pretrained",
      fmt::format("the checkpoint's adapters were trained over frozen weights of sha256 {}, and this run's "
                  "model.pretrained gives {}",
                  s.base_weights_sha256.substr(0, 16),
                  base_sha256.empty() ? "no frozen weights" : base_sha256.substr(0, 16)),
      "resume with the model.pretrained (and [lora] section) the run was started with"));
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

// Another split of the same global batch (checked by the resume plan) must
// also cut an epoch into as many optimizer steps as the checkpoint's did.
void check_epoch_length(const TrainingState& s, const ResumePosition& at, long long steps_per_epoch) {
  if (at.then == at.now || s.steps_per_epoch <= 0 || s.steps_per_epoch == steps_per_epoch) return;
  throw InputError(make_error(
      {}, "topology",
      fmt::format("an epoch has {} optimizer steps under {}, and had {} under {} (data.drop_last "
                  "drops a different remainder), so the schedule would change",
                  steps_per_epoch, at.now.str(), s.steps_per_epoch, at.then.str()),
      "resume with the topology that wrote the checkpoint, or set data.drop_last = false"));
}

// The checkpoint's position must lie inside this run's schedule: a state edited
// past it would end "completed" at once with the checkpoint's weights as final.
void check_progress(const TrainingState& s, long long position, long long total_steps, long long batches) {
  std::string problem;
  if (s.global_step > total_steps)
    problem = fmt::format("the checkpoint is at optimizer step {}, past this run's {} steps", s.global_step,
                          total_steps);
  else if (position > 0 && position >= batches)
    problem = fmt::format("the checkpoint is at batch {} of an epoch of {} batches", position, batches);
  if (problem.empty()) return;
  throw InputError(make_error({}, "train", problem,
                              "resume from another checkpoint, or with the recipe the run was started with"));
}

}  // namespace

TrainingState Trainer::capture_state() const {
  TrainingState s = live_state();
  for (auto& [name, t] : s.model) t = t.clone();
  return s;
}

TrainingState Trainer::live_state() const {
  TrainingState s = state_;
  s.best = scheduler_.best();
  s.model = model_tensors(*model_, !base_sha256_.empty());
  s.base_weights_sha256 = base_sha256_;
  step_.capture(s);
  s.sampler = data_.state();
  capture_rng(s);
  if (parallel_) {  // every rank's generator: rank 0 writes them all
    std::vector<torch::Tensor> all = parallel_->gather_from_all(s.cpu_rng);
    s.rank_cpu_rng.assign(all.begin() + 1, all.end());
  }
  return s;
}

void Trainer::resume(const TrainingState& s, const ResumePosition& at) {
  check_epoch_length(s, at, steps_per_epoch());
  const long long position = at.batch_in_epoch;
  check_progress(s, position, total_steps(), data_.batches_per_epoch());
  const bool trainable_only = !s.base_weights_sha256.empty();
  if (trainable_only) check_base(s, base_sha256_);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model_->named_parameters())
      if (!trainable_only || p.value().requires_grad()) copy_into(p.key(), p.value(), s.model);
    if (!trainable_only)
      for (auto& b : model_->named_buffers()) copy_into(b.key(), b.value(), s.model);
  }
  data_.load_state(s.sampler);
  restore_rng(s, parallel_ ? parallel_->rank() : 0);
  state_ = s;
  state_.model.clear();
  state_.optimizer.clear();
  state_.batch_in_epoch = position;
  state_.world_size = static_cast<int>(at.now.world);
  state_.grad_accum = at.now.grad_accum;
  state_.steps_per_epoch = steps_per_epoch();
  scheduler_.restore_best(s.best);
  step_.restore(s, at.then, at.now);
}

// Every rank enters (the state capture may gather a sharded optimizer); rank 0
// writes. A checkpoint follows a settle: it holds the log interval's sums.
std::string Trainer::save_checkpoint() {
  if (config_.checkpoints_dir.empty()) return {};
  if (!step_.settled()) step_.settle();
  std::string path = config_.checkpoints_dir + "/" + checkpoint_name(state_.global_step);
  TrainingState live = live_state();
  scheduler_.checkpoint_taken(std::chrono::steady_clock::now());
  if (!parallel_ || parallel_->rank() == 0) {
    if (!checkpointer_)
      checkpointer_ = std::make_unique<Checkpointer>(config_.checkpoints_dir, config_.keep_last, checkpoint_hook_);
    const BestMetricState& best = scheduler_.best();
    events_.emit(checkpointer_->save(live, best.has_best ? best.checkpoint : std::string()).event());
  }
  if (parallel_) parallel_->barrier("waiting for rank 0 to take a checkpoint");
  return path;
}

}  // namespace runner
