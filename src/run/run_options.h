// The [run] section: its options, each declared once together with the
// RunSettings field it writes. Torch-free.
#pragma once

#include "registry/option_binding.h"

#include <string>
#include <vector>

namespace runner {

enum class DeviceChoice { Auto, Cpu, Cuda };

struct RunSettings {
  std::string name;  // resolved: the recipe file's stem when the recipe leaves it empty
  long long seed{};
  std::string output_dir;
  DeviceChoice device{};
  long long threads{};
  bool deterministic{};
  std::vector<std::string> loggers;
};

const OptionBinding<RunSettings>& run_options();

// The settings of a resolved [run] section.
RunSettings run_settings_from(const nlohmann::json& run_section);

}  // namespace runner
