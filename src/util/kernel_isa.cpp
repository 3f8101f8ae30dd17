#include "util/kernel_isa.h"

#include <cstdlib>
#include <iostream>
#include <string>

namespace runner {
namespace {

KernelIsa widest_on_this_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return KernelIsa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return KernelIsa::Avx2;
  return KernelIsa::Generic;
}

KernelIsa choose() {
  const KernelIsa widest = widest_on_this_cpu();
  const char* asked = std::getenv("RUNNER_KERNEL_ISA");
  if (!asked || !*asked) return widest;
  for (KernelIsa isa : {KernelIsa::Generic, KernelIsa::Avx2, KernelIsa::Avx512}) {
    if (asked != std::string(kernel_isa_name(isa))) continue;
    if (isa <= widest) return isa;
    std::cerr << "warning: RUNNER_KERNEL_ISA=" << asked << " but this CPU's widest is "
              << kernel_isa_name(widest) << "; using " << kernel_isa_name(widest) << "\n";
    return widest;
  }
  std::cerr << "warning: RUNNER_KERNEL_ISA=" << asked
            << " is not one of generic, avx2, avx512; using " << kernel_isa_name(widest) << "\n";
  return widest;
}

}  // namespace

KernelIsa kernel_isa() {
  static const KernelIsa isa = choose();
  return isa;
}

const char* kernel_isa_name(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::Avx512: return "avx512";
    case KernelIsa::Avx2: return "avx2";
    case KernelIsa::Generic: break;
  }
  return "generic";
}

}  // namespace runner
