// For plugin authors: a plugin is a shared library that registers components.
//
//   #include "registry/plugin_api.h"
//   static void register_mine(runner::PluginContext& ctx) { ctx.add(spec, factory); }
//   RUNNER_PLUGIN(register_mine)
//
// The runner checks the ABI version before calling anything else.
#pragma once

#include "registry/registry.h"

#ifndef RUNNER_PLUGIN_ABI_VERSION  // tests build a plugin with another version
#define RUNNER_PLUGIN_ABI_VERSION 2  // 2: metrics read MetricInput of any problem type
#endif

namespace runner {

class PluginContext {
 public:
  PluginContext(Registry& reg, std::string origin) : reg_(reg), origin_(std::move(origin)) {}
  // Registers a component; a duplicate name is recorded as this plugin's error.
  void add(ComponentSpec spec, std::any factory);
  const std::string& error() const { return error_; }

 private:
  Registry& reg_;
  std::string origin_;
  std::string error_;
};

}  // namespace runner

#define RUNNER_PLUGIN(register_fn)                                                      \
  extern "C" int runner_plugin_abi_version() { return RUNNER_PLUGIN_ABI_VERSION; }      \
  extern "C" const char* runner_plugin_compiler() { return __VERSION__; }               \
  extern "C" void runner_plugin_register(runner::PluginContext* ctx) { register_fn(*ctx); }
