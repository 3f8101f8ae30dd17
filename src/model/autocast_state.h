// The process's autocast settings as one value: whether CPU and CUDA autocast
// are on, their dtypes and the oneDNN switch, read across LibTorch versions
// (2.4 replaced the per-device setters by ones taking the device type).
// train/autocast.h sets them for a forward; a layer recomputed in the backward
// (model/layer_recompute.h) re-enters what its forward ran under.
#pragma once

#include <torch/torch.h>

namespace runner {

bool autocast_enabled(c10::DeviceType device);
void set_autocast_enabled(c10::DeviceType device, bool on);
at::ScalarType autocast_dtype(c10::DeviceType device);
void set_autocast_dtype(c10::DeviceType device, at::ScalarType dtype);

struct AutocastState {
  bool cpu = false, cuda = false;
  at::ScalarType cpu_dtype = at::kBFloat16, cuda_dtype = at::kHalf;
  bool onednn = true;  // at::globalContext().userEnabledMkldnn()

  static AutocastState current();
};

// `state` for the guard's lifetime, as one autocast region (its weight cache
// is cleared when the outermost region ends); the previous state afterwards.
class AutocastStateGuard {
 public:
  explicit AutocastStateGuard(const AutocastState& state);
  ~AutocastStateGuard();
  AutocastStateGuard(const AutocastStateGuard&) = delete;
  AutocastStateGuard& operator=(const AutocastStateGuard&) = delete;

 private:
  static void apply(const AutocastState& s);
  AutocastState previous_;
};

}  // namespace runner
