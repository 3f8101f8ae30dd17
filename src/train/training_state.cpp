#include "train/training_state.h"
#include "model/base_weights.h"
#include "util/synced_file.h"
#include "train/tensor_file.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <fmt/format.h>

#include <ATen/CPUGeneratorImpl.h>

namespace fs = std::filesystem;

namespace runner {
namespace {

nlohmann::json scalars_json(const TrainingState& s) {
  return {{"format_version", TrainingState::kFormatVersion},
          {"global_step", s.global_step},
          {"scheduler_step", s.scheduler_step},
          {"epoch", s.epoch},
          {"batch_in_epoch", s.batch_in_epoch},
          {"samples_seen", s.samples_seen},
          {"loss_scaler",
           {{"scale", s.loss_scaler.scale},
            {"growth_tracker", s.loss_scaler.growth_tracker},
            {"skipped_steps", s.loss_scaler.skipped_steps}}},
          {"sampler", s.sampler},
          {"best",
           {{"has_best", s.best.has_best},
            {"value", s.best.value},
            {"step", s.best.step},
            {"checkpoint", s.best.checkpoint},
            {"evals_without_improvement", s.best.evals_without_improvement}}},
          {"world_size", s.world_size},
          {"grad_accum", s.grad_accum},
          {"steps_per_epoch", s.steps_per_epoch},
          {"cuda_devices", s.cuda_rng.size()},
          {"pending_log", s.pending_log}};
}

// A count read as a whole number: nlohmann converts 8.0 silently and 1e30 with
// undefined behaviour, so only an integer is one.
long long count_field(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  if (!v.is_number_integer())
    throw std::invalid_argument(fmt::format("\"{}\" is {}, not a whole number", key, v.dump()));
  return v.get<long long>();
}

void read_scalars(const nlohmann::json& j, TrainingState& s) {
  s.global_step = count_field(j, "global_step");
  s.scheduler_step = count_field(j, "scheduler_step");
  s.epoch = count_field(j, "epoch");
  s.batch_in_epoch = count_field(j, "batch_in_epoch");
  s.samples_seen = count_field(j, "samples_seen");
  const auto& ls = j.at("loss_scaler");
  s.loss_scaler = {ls.at("scale"), ls.at("growth_tracker"), ls.at("skipped_steps")};
  s.sampler = j.at("sampler");
  if (!s.sampler.is_object())
    throw std::invalid_argument(fmt::format("\"sampler\" is {}, not an object", s.sampler.dump()));
  if (s.sampler.contains("length_group_batch")) count_field(s.sampler, "length_group_batch");
  const auto& b = j.at("best");
  s.best = {b.at("has_best"), b.at("value"), b.at("step"), b.at("checkpoint"),
            b.at("evals_without_improvement")};
  s.world_size = count_field(j, "world_size");
  s.grad_accum = record_integer(j, "grad_accum", 0);
  s.steps_per_epoch = record_integer(j, "steps_per_epoch", 0);
  s.pending_log = record_object(j, "pending_log");
}

// A state.json edited and its manifest rehashed still verifies: its progress
// must at least agree with itself and with the directory's name, else training
// would continue from a position no run reached.
void check_scalars(const TrainingState& s, const std::string& state_path, const std::string& dir_name) {
  std::string problem;
  const std::optional<long long> named = checkpoint_step(dir_name);
  if (named && *named != s.global_step)
    problem = fmt::format("global_step is {}, and the checkpoint is {}", s.global_step, dir_name);
  else if (s.global_step < 0 || s.scheduler_step < 0 || s.scheduler_step > s.global_step)
    problem = fmt::format("scheduler_step {} is not within [0, global_step {}]", s.scheduler_step, s.global_step);
  else if (s.epoch < 0 || s.batch_in_epoch < 0 || s.samples_seen < 0 || s.world_size < 1)
    problem = "epoch, batch_in_epoch and samples_seen must not be negative, world_size at least 1";
  if (problem.empty()) return;
  throw InputError(make_error(SourceLocation{state_path, 0, 0, ""}, "", problem,
                              "the checkpoint is damaged; resume from an earlier one"));
}

TensorMap rng_tensors(const TrainingState& s) {
  TensorMap m;
  if (s.cpu_rng.defined()) m["cpu"] = s.cpu_rng;
  for (size_t r = 0; r < s.rank_cpu_rng.size(); ++r)
    m[fmt::format("cpu.rank{}", r + 1)] = s.rank_cpu_rng[r];
  for (size_t i = 0; i < s.cuda_rng.size(); ++i) m[fmt::format("cuda.{}", i)] = s.cuda_rng[i];
  return m;
}

}  // namespace

void capture_rng(TrainingState& s) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  s.cpu_rng = gen.get_state();
}

void restore_rng(const TrainingState& s, int rank) {
  const bool own = rank > 0 && static_cast<size_t>(rank) <= s.rank_cpu_rng.size();
  const torch::Tensor& state = own ? s.rank_cpu_rng[static_cast<size_t>(rank) - 1] : s.cpu_rng;
  if (!state.defined()) return;
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

std::vector<CheckpointFile> encode_training_state(const TrainingState& s) {
  auto tensor_file = [](const char* name, const TensorMap& tensors, const TensorMetadata& metadata = {}) {
    EncodedTensors e = encode_tensor_views(tensors, metadata);
    return CheckpointFile{name, std::move(e.header), std::move(e.data), std::move(e.owner)};
  };
  TensorMetadata base;
  if (!s.base_weights_sha256.empty()) base[kBaseWeightsKey] = s.base_weights_sha256;
  return {{"state.json", scalars_json(s).dump(2) + "\n"},
          tensor_file("model.safetensors", s.model, base),
          tensor_file("optimizer.safetensors", s.optimizer),
          tensor_file("rng.safetensors", rng_tensors(s))};
}

TrainingState load_training_state(const std::string& dir) {
  std::string state_path = dir + "/state.json";
  nlohmann::json j = read_json_document(state_path, "", "resume from an earlier checkpoint");
  if (!j.is_object())
    throw InputError(make_error(SourceLocation{state_path, 0, 0, ""}, "", "expected a JSON object",
                                "resume from an earlier checkpoint"));
  long long version = record_integer(j, "format_version", -1);
  if (version != TrainingState::kFormatVersion)
    throw InputError(make_error(
        SourceLocation{state_path, 0, 0, ""}, "",
        version < 0 ? "format_version is missing or not a whole number"
                    : fmt::format("training state format {}, this runner reads format {}", version,
                                  TrainingState::kFormatVersion),
        "resume with the runner version that wrote the checkpoint"));
  TrainingState s;
  try {
    read_scalars(j, s);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(make_error(SourceLocation{state_path, 0, 0, ""}, "", "missing or bad field: " + json_error_text(e),
                                "the checkpoint is damaged; resume from an earlier one"));
  } catch (const std::invalid_argument& e) {
    throw InputError(make_error(SourceLocation{state_path, 0, 0, ""}, "", std::string("bad field: ") + e.what(),
                                "the checkpoint is damaged; resume from an earlier one"));
  }
  check_scalars(s, state_path, fs::path(dir).filename().string());
  auto load = [&dir](const std::string& f, TensorMetadata* metadata = nullptr) {
    const std::string path = dir + "/" + f;
    if (!fs::is_regular_file(path))
      throw InputError(make_error(SourceLocation{path, 0, 0, ""}, "", "missing from the checkpoint",
                                  "the checkpoint is damaged; resume from an earlier one"));
    return decode_tensors(read_file_bytes(path), path, metadata);
  };
  TensorMetadata model_metadata;
  s.model = load("model.safetensors", &model_metadata);
  if (auto base = model_metadata.find(kBaseWeightsKey); base != model_metadata.end())
    s.base_weights_sha256 = base->second;
  s.origin = dir;
  s.optimizer = load("optimizer.safetensors");
  TensorMap rng = load("rng.safetensors");
  if (rng.count("cpu")) s.cpu_rng = rng.at("cpu");
  for (int r = 1; rng.count(fmt::format("cpu.rank{}", r)); ++r)
    s.rank_cpu_rng.push_back(rng.at(fmt::format("cpu.rank{}", r)));
  const long long cuda_devices = std::max(0LL, record_integer(j, "cuda_devices", 0));
  for (long long i = 0; i < cuda_devices; ++i) {
    auto generator = rng.find(fmt::format("cuda.{}", i));
    if (generator == rng.end())
      throw InputError(make_error(SourceLocation{dir + "/rng.safetensors", 0, 0, ""}, "",
                                  fmt::format("state.json lists {} CUDA generators, and this file has no "
                                              "\"cuda.{}\"", cuda_devices, i),
                                  "the checkpoint is damaged; resume from an earlier one"));
    s.cuda_rng.push_back(generator->second);
  }
  return s;
}

}  // namespace runner
