#include "train/autocast.h"

#include "model/autocast_state.h"
#include "util/cpu_info.h"

#include <ATen/autocast_mode.h>

namespace runner {

bool bf16_is_emulated() { return !cpu_has_native_bf16(); }

AutocastGuard::AutocastGuard(Precision precision, c10::DeviceType device)
    : active_(precision != Precision::Fp32), device_(device) {
  if (!active_) return;
  previous_enabled_ = autocast_enabled(device_);
  previous_dtype_ = autocast_dtype(device_);
  set_autocast_enabled(device_, true);
  set_autocast_dtype(device_, precision == Precision::Fp16 ? at::kHalf : at::kBFloat16);
  at::autocast::increment_nesting();
  // A CPU without AVX-512 runs bf16 matmuls on ATen's own GEMM (LibTorch's oneDNN
  // check asks for avx512bw/vl/dq); forced emulation takes the same path here, for
  // the rest of the process: the backward's bf16 matmuls run after this region
  // ends and must not reach oneDNN either (where ONEDNN_MAX_CPU_ISA caps it at
  // AVX2, as a Zen 3 has it, oneDNN would refuse them).
  if (device_ == c10::DeviceType::CPU && precision == Precision::Bf16 && cpu_bf16_emulation_forced())
    at::globalContext().setUserEnabledMkldnn(false);
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_autocast_enabled(device_, previous_enabled_);
  set_autocast_dtype(device_, previous_dtype_);
}

}  // namespace runner
