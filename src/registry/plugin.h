#pragma once

#include "registry/registry.h"

#include <string>

namespace runner {

// Loads a plugin shared library once (later calls with the same file do
// nothing): checks its ABI version and compiler, then lets it register its
// components. Returns "" or an error that names the file and the fix.
// `listing`: only its components' names and docs are wanted (`runner plugins`):
// the front runner then tries it too, and hands over only when the plugin
// needs symbols the front lacks.
std::string load_plugin(const std::string& path, Registry& reg, bool listing = false);

// Thrown by load_plugin in the front runner, which links no LibTorch: a plugin
// resolves the full runner's symbols (LibTorch's among them), so the command goes
// to the full runner whole (cli/cli.cpp). Not a std::exception, so that no handler
// that turns errors into messages takes it.
struct PluginNeedsFullRunner {
  std::string path;
};

}  // namespace runner
