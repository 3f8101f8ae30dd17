// The CUDA devices the NVIDIA driver shows this process, asked without the CUDA
// runtime or LibTorch: the front runner judges a recipe's device with it.
#pragma once

namespace runner {

// cuDeviceGetCount after cuInit, through libcuda.so.1 opened here; 0 when there
// is no driver, it fails to start, or it shows no device. CUDA_VISIBLE_DEVICES
// applies, as it does to LibTorch's count.
int cuda_driver_device_count();

}  // namespace runner
