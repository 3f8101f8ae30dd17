// What /proc/cpuinfo says of this machine's CPU.
#pragma once

#include <string>

namespace runner {

std::string cpu_model();     // "model name", or "unknown"
bool cpu_has_native_bf16();  // avx512_bf16 or amx_bf16 among the flags

}  // namespace runner
