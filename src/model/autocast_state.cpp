#include "model/autocast_state.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace runner {

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool autocast_enabled(c10::DeviceType d) { return at::autocast::is_autocast_enabled(d); }
void set_autocast_enabled(c10::DeviceType d, bool on) { at::autocast::set_autocast_enabled(d, on); }
at::ScalarType autocast_dtype(c10::DeviceType d) { return at::autocast::get_autocast_dtype(d); }
void set_autocast_dtype(c10::DeviceType d, at::ScalarType t) { at::autocast::set_autocast_dtype(d, t); }
#else
namespace {
bool cuda(c10::DeviceType d) { return d == c10::DeviceType::CUDA; }
}  // namespace
bool autocast_enabled(c10::DeviceType d) {
  return cuda(d) ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
}
void set_autocast_enabled(c10::DeviceType d, bool on) {
  cuda(d) ? at::autocast::set_enabled(on) : at::autocast::set_cpu_enabled(on);
}
at::ScalarType autocast_dtype(c10::DeviceType d) {
  return cuda(d) ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
}
void set_autocast_dtype(c10::DeviceType d, at::ScalarType t) {
  cuda(d) ? at::autocast::set_autocast_gpu_dtype(t) : at::autocast::set_autocast_cpu_dtype(t);
}
#endif

AutocastState AutocastState::current() {
  AutocastState s;
  s.cpu = autocast_enabled(c10::DeviceType::CPU);
  s.cuda = autocast_enabled(c10::DeviceType::CUDA);
  s.cpu_dtype = autocast_dtype(c10::DeviceType::CPU);
  s.cuda_dtype = autocast_dtype(c10::DeviceType::CUDA);
  s.onednn = at::globalContext().userEnabledMkldnn();
  return s;
}

void AutocastStateGuard::apply(const AutocastState& s) {
  set_autocast_enabled(c10::DeviceType::CPU, s.cpu);
  set_autocast_enabled(c10::DeviceType::CUDA, s.cuda);
  set_autocast_dtype(c10::DeviceType::CPU, s.cpu_dtype);
  set_autocast_dtype(c10::DeviceType::CUDA, s.cuda_dtype);
  at::globalContext().setUserEnabledMkldnn(s.onednn);
}

AutocastStateGuard::AutocastStateGuard(const AutocastState& state) : previous_(AutocastState::current()) {
  apply(state);
  at::autocast::increment_nesting();
}

AutocastStateGuard::~AutocastStateGuard() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  apply(previous_);
}

}  // namespace runner
