#include "util/cpu_info.h"

#include <fstream>

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

bool cpu_has_native_bf16() {
  std::string flags = " " + cpuinfo_field("flags") + " ";
  return flags.find(" avx512_bf16 ") != std::string::npos ||
         flags.find(" amx_bf16 ") != std::string::npos;
}

}  // namespace runner
