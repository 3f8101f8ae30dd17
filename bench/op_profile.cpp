#include "op_profile.h"

#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <map>

namespace bench {
namespace {

namespace prof = torch::autograd::profiler;

struct Open {
  std::string name;
  double start_us = 0, children_us = 0;
};

void add_thread(const std::vector<prof::LegacyEvent>& events, std::map<std::string, OpTime>& out) {
  std::vector<Open> stack;
  for (const auto& e : events) {
    if (e.kind() == prof::EventKind::PushRange) {
      stack.push_back({e.name(), e.cpuUs(), 0});
    } else if (e.kind() == prof::EventKind::PopRange && !stack.empty()) {
      Open o = stack.back();
      stack.pop_back();
      double elapsed = e.cpuUs() - o.start_us;
      OpTime& t = out[o.name];
      t.name = o.name;
      t.self_ms += (elapsed - o.children_us) / 1000.0;
      ++t.calls;
      if (!stack.empty()) stack.back().children_us += elapsed;
    }
  }
}

}  // namespace

std::vector<OpTime> profile_ops(const std::function<void()>& work) {
  prof::enableProfilerLegacy(torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
  work();
  auto lists = prof::disableProfilerLegacy();
  std::map<std::string, OpTime> by_name;
  for (const auto& list : lists) add_thread(list, by_name);
  std::vector<OpTime> ops;
  for (auto& [name, t] : by_name) ops.push_back(t);
  std::sort(ops.begin(), ops.end(), [](const OpTime& a, const OpTime& b) { return a.self_ms > b.self_ms; });
  return ops;
}

}  // namespace bench
