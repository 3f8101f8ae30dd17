#pragma once

#include "registry/registry.h"

#include <string>

namespace runner {

// Loads a plugin shared library once (later calls with the same file do
// nothing): checks its ABI version and compiler, then lets it register its
// components. Returns "" or an error that names the file and the fix.
std::string load_plugin(const std::string& path, Registry& reg);

}  // namespace runner
