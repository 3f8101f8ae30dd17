#include "train/autocast.h"

#include "util/cpu_info.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace runner {

bool bf16_is_emulated() { return !cpu_has_native_bf16(); }

namespace {

// LibTorch 2.4 replaced the per-device setters (set_cpu_enabled,
// set_autocast_gpu_dtype, ...) by ones that take the device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool enabled(c10::DeviceType d) { return at::autocast::is_autocast_enabled(d); }
void set_enabled(c10::DeviceType d, bool on) { at::autocast::set_autocast_enabled(d, on); }
at::ScalarType dtype(c10::DeviceType d) { return at::autocast::get_autocast_dtype(d); }
void set_dtype(c10::DeviceType d, at::ScalarType t) { at::autocast::set_autocast_dtype(d, t); }
#else
bool cuda(c10::DeviceType d) { return d == c10::DeviceType::CUDA; }
bool enabled(c10::DeviceType d) {
  return cuda(d) ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
}
void set_enabled(c10::DeviceType d, bool on) {
  cuda(d) ? at::autocast::set_enabled(on) : at::autocast::set_cpu_enabled(on);
}
at::ScalarType dtype(c10::DeviceType d) {
  return cuda(d) ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
}
void set_dtype(c10::DeviceType d, at::ScalarType t) {
  cuda(d) ? at::autocast::set_autocast_gpu_dtype(t) : at::autocast::set_autocast_cpu_dtype(t);
}
#endif

}  // namespace

AutocastGuard::AutocastGuard(Precision precision, c10::DeviceType device)
    : active_(precision != Precision::Fp32), device_(device) {
  if (!active_) return;
  previous_enabled_ = enabled(device_);
  previous_dtype_ = dtype(device_);
  set_enabled(device_, true);
  set_dtype(device_, precision == Precision::Fp16 ? at::kHalf : at::kBFloat16);
  at::autocast::increment_nesting();
  // A CPU without AVX-512 runs bf16 matmuls on ATen's own GEMM (LibTorch's oneDNN
  // check asks for avx512bw/vl/dq); forced emulation takes the same path here.
  if (device_ == c10::DeviceType::CPU && precision == Precision::Bf16 && cpu_bf16_emulation_forced() &&
      at::globalContext().userEnabledMkldnn()) {
    at::globalContext().setUserEnabledMkldnn(false);
    restore_onednn_ = true;
  }
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_enabled(device_, previous_enabled_);
  set_dtype(device_, previous_dtype_);
  if (restore_onednn_) at::globalContext().setUserEnabledMkldnn(true);
}

}  // namespace runner
