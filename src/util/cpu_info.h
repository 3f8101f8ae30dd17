// What /proc/cpuinfo says of this machine's CPU, and how much of the machine
// this process may use (CPUs, memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace runner {

std::string cpu_model();     // "model name", or "unknown"
bool cpu_has_native_bf16();  // avx512_bf16 or amx_bf16 among the flags
// Which of the vector and matrix extensions that LibTorch's, OpenBLAS's and the
// runner's kernels choose between this CPU has (sse4_2 ... amx_bf16), in that order.
std::vector<std::string> cpu_vector_flags();

// Every CPU this process may run on (sched_getaffinity), at least 1.
int usable_cpus();

// The memory this process may use, in bytes: /proc/meminfo's MemTotal, or the
// cgroup's memory.max when that is lower; 0 when neither can be read.
std::uint64_t usable_memory_bytes();

}  // namespace runner
