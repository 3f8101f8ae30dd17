// Hand-written run and sweep directories with known values, for the report
// and ls tests: what `runner run` and `runner sweep` write, reduced to the
// records the readers use.
#pragma once

#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace runner::test {

struct FakeRun {
  std::string name = "demo";
  std::string started = "2026-01-02T03:04:05Z";
  std::string status = "completed";
  double lr = 1e-3;
  bool fp16 = false;
  // Train loss at steps 2, 4, 6 and eval accuracy at steps 3 and 6 (best at 3).
  // Three steps an epoch, an effective batch of 16 and 10 s a step (elapsed_s = 10 x step + 0.5).
  std::vector<double> losses = {0.7, 0.6, 0.5};
  std::vector<double> accuracies = {0.75, 0.70};
};

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string make_fake_run(const std::string& parent, const std::string& folder, const FakeRun& r) {
  std::string dir = parent + "/" + r.name + "/" + folder;
  std::filesystem::create_directories(dir + "/checkpoints");
  nlohmann::json env = {{"started_utc", r.started}, {"git_commit", "abc123def456"}, {"host", "testhost"},
                        {"cpu_model", "Test CPU"}, {"runner_version", "0.1.0"}, {"device", "cpu"},
                        {"threads", 2}, {"libtorch_version", "1.13.1"},
                        {"content_sha256", {{"/data/glue/mrpc/train.tsv", std::string(64, 'a')}}},
                        {"recipe", {{"path", "/recipes/demo.toml"}, {"overrides", {"optimizer.lr=0.001"}}}}};
  nlohmann::json resolved = {{"run", {{"name", r.name}, {"seed", 7}}},
                             {"optimizer", {{"type", "adamw"}, {"lr", r.lr}}},
                             {"data", {{"max_length", 64}, {"train_batch_size", 16}}},
                             {"train", {{"metric_for_best", "eval.accuracy"}}}};
  nlohmann::json summary = {{"status", r.status}, {"global_step", 6}, {"total_steps", 6},
                            {"total_wall_seconds", 125.0}, {"samples_per_s", 42.5},
                            {"best", {{"value", r.accuracies[0]}, {"step", 3}, {"checkpoint", "step-00000003"},
                                      {"metric", "eval.accuracy"}}},
                            {"final", {{"accuracy", r.accuracies.back()}, {"loss", 0.55}}}};
  std::string events =
      nlohmann::json({{"event", "start"}, {"total_steps", 6}, {"steps_per_epoch", 3}}).dump() + "\n";
  for (size_t i = 0; i < r.losses.size(); ++i) {
    long long step = 2 * static_cast<long long>(i + 1);
    nlohmann::json t = {{"event", "train"}, {"step", step}, {"epoch", step / 3}, {"loss", r.losses[i]},
                        {"lr", r.lr}, {"grad_norm", 1.5}, {"samples_per_s", 40.0 + static_cast<double>(i)},
                        {"tokens_per_s", 900.0}, {"effective_batch", 16}, {"elapsed_s", 10.0 * step + 0.5}};
    if (r.fp16) t["loss_scale"] = 65536.0;
    events += t.dump() + "\n";
    if (i == 0) events += nlohmann::json({{"event", "eval"}, {"step", 3}, {"epoch", 0}, {"loss", 0.6},
                                          {"accuracy", r.accuracies[0]}, {"examples", 8}, {"is_best", true},
                                          {"elapsed_s", 30.5}})
                              .dump() + "\n";
  }
  events += nlohmann::json({{"event", "eval"}, {"step", 6}, {"epoch", 1}, {"loss", 0.55},
                            {"accuracy", r.accuracies[1]}, {"examples", 8}, {"elapsed_s", 60.5}})
                .dump() + "\n";
  write_text(dir + "/env.json", env.dump(2));
  write_text(dir + "/recipe.resolved.json", resolved.dump(2));
  write_text(dir + "/summary.json", summary.dump(2));
  write_text(dir + "/metrics.jsonl", events + "{\"event\": \"tra");  // a killed write's partial line
  return dir;
}

// Each run's status as `runner ls --json RUNS` gives it, by name. Throws, with
// what ls printed, when it fails; `timeout` turns a listing that hangs (a FIFO
// opened to read) into that failure rather than a test that never ends.
inline std::map<std::string, std::string> listed_status(const std::string& runs) {
  CommandResult r = run_command("timeout 30 " + runner_exe() + " ls --json " + runs);
  if (r.exit_code != 0) throw std::runtime_error("runner ls --json failed:\n" + r.out);
  std::map<std::string, std::string> status;
  for (const auto& row : nlohmann::json::parse(r.out)) status[row["name"]] = row["status"];
  return status;
}

}  // namespace runner::test
