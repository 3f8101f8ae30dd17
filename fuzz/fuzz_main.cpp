// libFuzzer's entry points for the runner_fuzz executable: the target is
// picked by RUNNER_FUZZ_TARGET (one executable instead of twelve, each of
// which would link all of LibTorch under ASan).
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {
const runner::fuzz::Target* target = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A model or tokenizer name in a recipe must never reach the network.
  setenv("HF_HUB_OFFLINE", "1", 0);
  const char* name = std::getenv("RUNNER_FUZZ_TARGET");
  target = name ? runner::fuzz::find_target(name) : nullptr;
  if (!target) {
    std::fprintf(stderr, "runner_fuzz: set RUNNER_FUZZ_TARGET to one of:\n");
    for (const auto& t : runner::fuzz::targets()) std::fprintf(stderr, "  %-20s %s\n", t.name, t.doc);
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
