// Which instruction set the hand-written CPU loops (fused AdamW, dropout) run:
// the widest this CPU has, or a narrower one named by RUNNER_KERNEL_ISA
// (generic | avx2 | avx512), so that one machine can run the code path of
// another (scripts/test.sh cpu-matrix runs the suite under each).
#pragma once

namespace runner {

enum class KernelIsa { Generic, Avx2, Avx512 };

// Decided once per process. A RUNNER_KERNEL_ISA wider than the CPU, or not one
// of the three names, is reported once on stderr and the CPU's widest is used.
KernelIsa kernel_isa();
const char* kernel_isa_name(KernelIsa isa);

}  // namespace runner

// The compiler target of each variant. "avx2,fma", not "arch=haswell": gcc 12
// vectorises the AdamW loop (its std::fma) for the former only (objdump: ymm).
#define RUNNER_TARGET_AVX512 __attribute__((target("avx512f")))
#define RUNNER_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define RUNNER_TARGET_GENERIC
