#include "util/cuda_driver.h"

#include <dlfcn.h>

namespace runner {

int cuda_driver_device_count() {
  // The library stays open: the driver it started is this process's from now on.
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) return 0;
  using Init = int (*)(unsigned int);
  using DeviceCount = int (*)(int*);
  auto init = reinterpret_cast<Init>(dlsym(driver, "cuInit"));
  auto device_count = reinterpret_cast<DeviceCount>(dlsym(driver, "cuDeviceGetCount"));
  int count = 0;
  const int kSuccess = 0;  // CUDA_SUCCESS
  if (!init || !device_count || init(0) != kSuccess || device_count(&count) != kSuccess) return 0;
  return count;
}

}  // namespace runner
