// Mixed precision for the guard's lifetime, as torch.autocast(device_type, dtype):
// bf16 on CPU or CUDA, fp16 on CUDA; fp32 leaves autocast off.
#pragma once

#include "train/train_options.h"

#include <torch/torch.h>

#include <string>

namespace runner {

// Whether this CPU lacks native bf16, so that LibTorch emulates it (slowly).
bool bf16_is_emulated();

class AutocastGuard {
 public:
  AutocastGuard(Precision precision, c10::DeviceType device);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool active_ = false;
  c10::DeviceType device_;
  bool previous_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
};

}  // namespace runner
