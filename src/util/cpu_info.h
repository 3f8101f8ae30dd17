// What /proc/cpuinfo says of this machine's CPU, and how much of the machine
// this process may use (CPUs, memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace runner {

std::string cpu_model();     // "model name", or "unknown"
// avx512_bf16 or amx_bf16 among the flags, unless RUNNER_CPU_BF16=emulated.
bool cpu_has_native_bf16();
// RUNNER_CPU_BF16=emulated: behave as on a CPU without native bf16 (AVX2 alone, as
// a Zen 3): no native bf16 reported, and bf16 matmuls on ATen's own GEMM, the path
// LibTorch takes there (it sends them to oneDNN only with AVX-512). Reproduces such
// a CPU's bf16 arithmetic on any other (scripts/cpu_matrix.sh).
bool cpu_bf16_emulation_forced();
// Which of the vector and matrix extensions that LibTorch's, OpenBLAS's and the
// runner's kernels choose between this CPU has (sse4_2 ... amx_bf16), in that order.
std::vector<std::string> cpu_vector_flags();

// Every CPU this process may run on (sched_getaffinity), at least 1.
int usable_cpus();

// The memory this process may use, in bytes: /proc/meminfo's MemTotal, or the
// cgroup's memory.max when that is lower; 0 when neither can be read.
std::uint64_t usable_memory_bytes();

}  // namespace runner
