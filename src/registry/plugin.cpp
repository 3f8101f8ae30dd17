#include "registry/plugin.h"

#include "registry/plugin_api.h"
#include "util/torch_linked.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <set>

namespace runner {

void PluginContext::add(ComponentSpec spec, std::any factory) {
  std::string err = reg_.add(std::move(spec), std::move(factory), origin_);
  if (!err.empty() && error_.empty()) error_ = err;
}

std::string load_plugin(const std::string& path, Registry& reg, bool listing) {
  static std::set<std::string> loaded;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return fmt::format("plugin {} does not exist", path);
  std::string canonical = std::filesystem::canonical(path, ec).string();
  if (loaded.count(canonical)) return {};
  // dlopen of a FIFO blocks until a writer comes, and of a device reads it: only a
  // regular file (a link is followed) is opened.
  if (!std::filesystem::is_regular_file(canonical, ec))
    return fmt::format("plugin {} is not a regular file (a folder, FIFO or device): name the plugin's .so file", path);
  if (!links_torch() && !listing) throw PluginNeedsFullRunner{path};

  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle && !links_torch()) throw PluginNeedsFullRunner{path};  // a symbol only the full runner has
  if (!handle) return fmt::format("cannot load plugin {}: {}", path, dlerror());
  using AbiFn = int (*)();
  using CompilerFn = const char* (*)();
  using RegisterFn = void (*)(PluginContext*);
  auto abi = reinterpret_cast<AbiFn>(dlsym(handle, "runner_plugin_abi_version"));
  auto compiler = reinterpret_cast<CompilerFn>(dlsym(handle, "runner_plugin_compiler"));
  auto do_register = reinterpret_cast<RegisterFn>(dlsym(handle, "runner_plugin_register"));
  if (!abi || !compiler || !do_register)
    return fmt::format("{} is not a runner plugin: it lacks runner_plugin_abi_version/"
                       "runner_plugin_register (define them with RUNNER_PLUGIN(fn) from "
                       "registry/plugin_api.h)",
                       path);
  if (abi() != RUNNER_PLUGIN_ABI_VERSION)
    return fmt::format("plugin {} was built for plugin ABI version {}, but this runner has "
                       "version {}: rebuild the plugin against this runner's headers",
                       path, abi(), RUNNER_PLUGIN_ABI_VERSION);
  const char* built_with = compiler();
  if (!built_with || std::string(built_with) != __VERSION__)
    return fmt::format("plugin {} was built with compiler \"{}\", but this runner with \"{}\": "
                       "C++ components must be built with the same compiler; rebuild the plugin",
                       path, built_with ? built_with : "(none named)", __VERSION__);
  PluginContext ctx(reg, path);
  do_register(&ctx);
  if (!ctx.error().empty()) return fmt::format("plugin {}: {}", path, ctx.error());
  loaded.insert(canonical);
  return {};
}

}  // namespace runner
