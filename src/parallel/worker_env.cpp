#include "parallel/worker_env.h"

#include "util/diagnostic.h"
#include "util/numbers.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <utility>
#include <vector>

namespace runner {
namespace {

int parse_int(const char* name, const char* text, int lo, int hi) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi)
    throw InputError(make_error({}, name,
                                fmt::format("environment variable {}='{}' is not an integer in [{}, {}]",
                                            name, text, lo, hi),
                                "fix or unset it (it is set by torchrun, runner launch or srun)"));
  return static_cast<int>(v);
}

int required(const EnvLookup& env, const char* name, int lo, int hi) {
  const char* v = env(name);
  if (!v)
    throw InputError(make_error({}, name, fmt::format("environment variable {} is not set", name),
                                "a launcher sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT together"));
  return parse_int(name, v, lo, hi);
}

int optional_int(const EnvLookup& env, const char* name, int fallback, int lo, int hi) {
  const char* v = env(name);
  return v ? parse_int(name, v, lo, hi) : fallback;
}

void check_rank(const WorkerEnv& w, const char* rank_var) {
  if (w.rank >= w.world_size)
    throw InputError(make_error({}, rank_var,
                                fmt::format("rank {} is not below the world size {}", w.rank, w.world_size),
                                "check the launcher's process counts"));
}

WorkerEnv from_torchrun(const EnvLookup& env) {
  WorkerEnv w;
  w.source = "torchrun";
  w.world_size = required(env, "WORLD_SIZE", 1, 1 << 20);
  w.rank = required(env, "RANK", 0, 1 << 20);
  w.local_rank = optional_int(env, "LOCAL_RANK", w.rank, 0, 1 << 20);
  w.local_world_size = optional_int(env, "LOCAL_WORLD_SIZE", w.world_size, 1, 1 << 20);
  if (const char* a = env("MASTER_ADDR")) w.master_addr = a;
  w.master_port = optional_int(env, "MASTER_PORT", 29500, 1, 65535);
  check_rank(w, "RANK");
  return w;
}

WorkerEnv from_slurm(const EnvLookup& env) {
  WorkerEnv w;
  w.source = "slurm";
  w.world_size = required(env, "SLURM_NTASKS", 1, 1 << 20);
  w.rank = required(env, "SLURM_PROCID", 0, 1 << 20);
  w.local_rank = optional_int(env, "SLURM_LOCALID", 0, 0, 1 << 20);
  // SLURM_NTASKS_PER_NODE may read "2(x3)"; its leading number is what we need.
  if (const char* per = env("SLURM_NTASKS_PER_NODE")) {
    std::string text(per), why;
    text = text.substr(0, text.find_first_not_of("0123456789"));
    w.local_world_size = static_cast<int>(parse_integer(text, why, 1, 1 << 20).value_or(1));
  }
  if (const char* a = env("MASTER_ADDR")) w.master_addr = a;
  else if (const char* list = env("SLURM_NODELIST")) w.master_addr = first_slurm_host(list);
  else if (const char* list2 = env("SLURM_JOB_NODELIST")) w.master_addr = first_slurm_host(list2);
  w.master_port = optional_int(env, "MASTER_PORT", 29500, 1, 65535);
  check_rank(w, "SLURM_PROCID");
  return w;
}

}  // namespace

std::optional<WorkerEnv> worker_env_from(const EnvLookup& env) {
  if (env("WORLD_SIZE") || env("RANK")) return from_torchrun(env);
  if (env("SLURM_PROCID") && env("SLURM_NTASKS")) return from_slurm(env);
  return std::nullopt;
}

std::optional<WorkerEnv> worker_env_from_process() {
  return worker_env_from([](const char* n) { return static_cast<const char*>(std::getenv(n)); });
}

std::string first_slurm_host(const std::string& nodelist) {
  std::string first;
  int depth = 0;
  for (char c : nodelist) {  // the first comma outside brackets ends the first entry
    if (c == ',' && depth == 0) break;
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    first += c;
  }
  auto open = first.find('[');
  if (open == std::string::npos) return first;
  std::string prefix = first.substr(0, open);
  std::string range = first.substr(open + 1);
  auto stop = range.find_first_of(",-]");
  return prefix + range.substr(0, stop);
}

std::vector<std::pair<std::string, std::string>> worker_variables(const WorkerEnv& w) {
  return {{"RANK", std::to_string(w.rank)},
          {"WORLD_SIZE", std::to_string(w.world_size)},
          {"LOCAL_RANK", std::to_string(w.local_rank)},
          {"LOCAL_WORLD_SIZE", std::to_string(w.local_world_size)},
          {"MASTER_ADDR", w.master_addr},
          {"MASTER_PORT", std::to_string(w.master_port)}};
}

LaunchAttempt launch_attempt_from(const EnvLookup& env) {
  LaunchAttempt a;
  a.restart = optional_int(env, "RUNNER_RESTART_COUNT", 0, 0, 1 << 20);
  a.max_restarts = optional_int(env, "RUNNER_MAX_RESTARTS", 0, 0, 1 << 20);
  if (const char* r = env("RUNNER_RESTART_REASON")) a.reason = r;
  if (const char* n = env("RUNNER_RUN_DIR_NOTE")) a.run_dir_note = n;
  return a;
}

LaunchAttempt launch_attempt_from_process() {
  return launch_attempt_from([](const char* n) { return static_cast<const char*>(std::getenv(n)); });
}

std::vector<std::pair<std::string, std::string>> launch_attempt_variables(const LaunchAttempt& a) {
  std::vector<std::pair<std::string, std::string>> out = {
      {"RUNNER_RESTART_COUNT", std::to_string(a.restart)},
      {"RUNNER_MAX_RESTARTS", std::to_string(a.max_restarts)}};
  if (!a.reason.empty()) out.emplace_back("RUNNER_RESTART_REASON", a.reason);
  if (!a.run_dir_note.empty()) out.emplace_back("RUNNER_RUN_DIR_NOTE", a.run_dir_note);
  return out;
}

std::string read_run_dir_note(const std::string& note) {
  std::ifstream in(note);
  std::string dir;
  std::getline(in, dir);
  return dir;
}

void write_run_dir_note(const std::string& note, const std::string& run_dir) {
  const std::string tmp = note + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << run_dir << "\n";
    if (!out) return;  // the note only helps a restart; the run itself goes on
  }
  std::rename(tmp.c_str(), note.c_str());
}

}  // namespace runner
