// `runner env [--json]`: what this build and machine offer, in one place for a bug
// report (what `accelerate env` prints for Python users): the runner and LibTorch
// builds, CUDA and NCCL, the CPU's vector extensions, threads, and the roots and
// caches that names resolve against. A run's env.json records the same facts.
#include "cli/commands.h"

#include "hub/hub_settings.h"
#include "hub/python_packages.h"
#include "run/run_dir.h"
#include "util/cpu_info.h"
#include "util/kernel_isa.h"
#include "util/paths.h"
#include "util/redacted_uri.h"
#include "util/suggest.h"
#include "util/utf8.h"

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

#ifdef RUNNER_WITH_NCCL
#include <nccl.h>
#endif

#include "runner_build_config.h"
#include "util/built_commit.h"

namespace runner {
namespace {

using ojson = nlohmann::ordered_json;

std::string env_or(const char* name, const std::string& fallback = "(unset)") {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

ojson nccl_info() {
#ifdef RUNNER_WITH_NCCL
  return {{"compiled_in", true}, {"version", fmt::format("{}.{}.{}", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH)}};
#else
  return {{"compiled_in", false}};
#endif
}

ojson environment() {
  Capabilities caps = detect_capabilities();
  hub::HubSettings hub = hub::hub_settings_from_env();
  return {
      {"runner", {{"version", RUNNER_VERSION}, {"git_commit", built_commit()}, {"compiler", RUNNER_COMPILER}}},
      {"libtorch", {{"version", libtorch_version()}, {"build", at::show_config()}}},
      {"cuda", {{"built_with_cuda", caps.cuda_build}, {"available", caps.cuda_available},
                {"devices", caps.cuda_available ? static_cast<long long>(torch::cuda::device_count()) : 0LL},
                {"gpu", gpu_model()}}},
      {"nccl", nccl_info()},
      {"cpu", {{"model", cpu_model()}, {"vector_flags", cpu_vector_flags()},
               {"native_bf16", caps.native_bf16}, {"runner_kernels", kernel_isa_name(kernel_isa())},
               {"usable_cpus", usable_cpus()}, {"usable_memory_bytes", usable_memory_bytes()}}},
      {"threads", {{"intra_op", at::get_num_threads()}, {"inter_op", at::get_num_interop_threads()},
                   {"OMP_NUM_THREADS", env_or("OMP_NUM_THREADS")}, {"OMP_WAIT_POLICY", env_or("OMP_WAIT_POLICY")}}},
      {"paths", {{"data_root", data_root()}, {"models_root", model_root()}, {"token_cache", cache_root()},
                 {"hf_hub_cache", hub.cache_dir}, {"hf_endpoint", redacted_uri(hub.endpoint)}, {"offline", hub.offline},
                 {"python_packages", hub::python_package_dirs()}}},
  };
}

// The build configuration is LibTorch's own multi-line text: indented under its key.
std::string text_of(const std::string& key, const ojson& v, int indent) {
  std::string pad(indent, ' ');
  if (v.is_object()) {
    std::string s = fmt::format("{}{}:\n", pad, key);
    for (const auto& [k, item] : v.items()) s += text_of(k, item, indent + 2);
    return s;
  }
  std::string shown = v.is_string() ? v.get<std::string>() : v.dump();
  if (v.is_array()) {
    std::vector<std::string> items;
    for (const auto& item : v) items.push_back(item.is_string() ? item.get<std::string>() : item.dump());
    shown = items.empty() ? "(none)" : join(items);
  }
  // Values come from environment variables too: escaped, so none can drive the terminal.
  shown = terminal_safe(shown, true);
  if (shown.find('\n') == std::string::npos) return fmt::format("{}{}: {}\n", pad, key, shown);
  std::string s = fmt::format("{}{}:\n", pad, key);
  size_t start = 0;
  while (start < shown.size()) {
    size_t end = shown.find('\n', start);
    if (end == std::string::npos) end = shown.size();
    if (end > start) s += pad + "  " + shown.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return s;
}

}  // namespace

int cmd_env(const ParsedArgs& args) {
  ojson env = environment();
  if (args.has("--json")) {
    std::cout << json_terminal_safe(env.dump(2, ' ', false, ojson::error_handler_t::replace)) << "\n";
    return kExitOk;
  }
  for (const auto& [key, value] : env.items()) std::cout << text_of(key, value, 0);
  return kExitOk;
}

}  // namespace runner
