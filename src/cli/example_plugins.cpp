#include "cli/example_plugins.h"

#include "registry/plugin.h"
#include "registry/registry.h"
#include "util/paths.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace runner {
namespace {

std::vector<std::string> describe(const Registry& reg, const std::string& origin) {
  std::vector<std::string> out;
  for (Kind kind : all_kinds())
    for (const Component* c : reg.list(kind))
      if (c->origin == origin) out.push_back(kind_name(kind) + " " + c->spec.name + ": " + c->spec.doc);
  return out;
}

}  // namespace

std::vector<std::string> example_plugin_files() {
  const std::string bin = executable_dir();
  if (bin.empty()) return {};
  std::error_code ec;
  std::vector<std::string> files;
  for (fs::directory_iterator it(fs::path(bin) / "examples" / "plugins", ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().extension() == ".so" && it->is_regular_file(ec)) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// A plugin the recipe already loaded is not loaded twice: its components are
// then read from the process-wide registry, where they were registered.
std::vector<ExamplePlugin> read_example_plugins() {
  std::vector<ExamplePlugin> out;
  for (const std::string& path : example_plugin_files()) {
    Registry own;
    ExamplePlugin p{path, {}, load_plugin(path, own, /*listing=*/true)};
    p.components = describe(own, path);
    if (p.components.empty() && p.error.empty()) p.components = describe(registry(), path);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace runner
