// The example plugins a build ships (examples/plugins, built by scripts/setup.sh
// into <build>/examples/plugins): found beside the running binary and read for
// the components each adds, so that `runner plugins` can list them.
#pragma once

#include <string>
#include <vector>

namespace runner {

struct ExamplePlugin {
  std::string path;                     // absolute
  std::vector<std::string> components;  // "metric balanced_accuracy: ..."
  std::string error;                    // why it could not be read; empty when it was
};

// The .so files of <binary's folder>/examples/plugins, sorted by name; none
// when the folder is absent (an installed runner, a build without them).
std::vector<std::string> example_plugin_files();

// Each example's components, read by loading it into a registry of its own (the
// process-wide one is left as the recipe made it). The examples need no LibTorch,
// so the front runner reads them itself; one that does makes the load throw
// PluginNeedsFullRunner there: call this before printing anything.
std::vector<ExamplePlugin> read_example_plugins();

}  // namespace runner
