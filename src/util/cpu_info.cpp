#include "util/cpu_info.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <thread>

namespace runner {
namespace {

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  return {};
}

}  // namespace

std::string cpu_model() {
  std::string m = cpuinfo_field("model name");
  return m.empty() ? "unknown" : m;
}

bool cpu_bf16_emulation_forced() {
  const char* v = std::getenv("RUNNER_CPU_BF16");
  return v && std::string(v) == "emulated";
}

bool cpu_has_native_bf16() {
  if (cpu_bf16_emulation_forced()) return false;
  std::string flags = " " + cpuinfo_field("flags") + " ";
  return flags.find(" avx512_bf16 ") != std::string::npos ||
         flags.find(" amx_bf16 ") != std::string::npos;
}

std::vector<std::string> cpu_vector_flags() {
  static const char* const kKnown[] = {"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw",
                                       "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16",
                                       "amx_int8"};
  std::string flags = " " + cpuinfo_field("flags") + " ";
  std::vector<std::string> out;
  for (const char* f : kKnown)
    if (flags.find(" " + std::string(f) + " ") != std::string::npos) out.push_back(f);
  return out;
}

}  // namespace runner

namespace runner {

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

std::uint64_t meminfo_total() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024;
  return 0;
}

// cgroup v2's limit ("max" or a byte count); 0 when unlimited or absent.
std::uint64_t cgroup_limit() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  std::uint64_t bytes = 0;
  std::istringstream(text) >> bytes;
  return bytes;
}

}  // namespace

// Read once: a sweep's dry-run checks every point's model against it.
std::uint64_t usable_memory_bytes() {
  static const std::uint64_t bytes = [] {
    std::uint64_t total = meminfo_total(), limit = cgroup_limit();
    if (total == 0) return limit;
    return limit ? std::min(total, limit) : total;
  }();
  return bytes;
}

}  // namespace runner
