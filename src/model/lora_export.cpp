#include "model/lora_export.h"

#include "model/safetensors.h"
#include "util/output_check.h"

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

namespace runner {
namespace {

std::string parent_path(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

bool under(const std::string& name, const std::string& module) {
  return name.size() > module.size() && name.compare(0, module.size(), module) == 0 && name[module.size()] == '.';
}

// Whether every parameter under `module` is in `whole`.
bool all_trained(TaskModel& model, const std::string& module, const std::set<std::string>& whole) {
  bool any = false;
  for (const auto& p : model.named_parameters())
    if (under(p.key(), module)) {
      if (!whole.count(p.key())) return false;
      any = true;
    }
  return any;
}

}  // namespace

std::string peft_key(const std::string& name) { return "base_model.model." + name; }

std::vector<std::string> peft_modules_to_save(TaskModel& model, const std::vector<std::string>& trained_in_full) {
  const std::set<std::string> whole(trained_in_full.begin(), trained_in_full.end());
  std::vector<std::string> modules;
  for (const auto& name : trained_in_full) {
    std::string module = parent_path(name);
    // Never up to a top-level module that holds the base model ("bert").
    for (std::string up = parent_path(module); !up.empty() && all_trained(model, up, whole); up = parent_path(up))
      module = up;
    if (module.empty()) continue;
    bool covered = false;
    for (const auto& m : modules) covered = covered || m == module || under(module, m);
    if (!covered) modules.push_back(module);
  }
  return modules;
}

nlohmann::json peft_adapter_config(TaskModel& model, const AdapterExport& a) {
  std::vector<std::string> targets;
  for (const auto& path : a.report.adapted) {
    auto dot = path.rfind('.');
    std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
    if (std::find(targets.begin(), targets.end(), last) == targets.end()) targets.push_back(last);
  }
  // Full paths where the last names would also match layers left without adapters.
  bool exact = false;
  for (const auto& item : model.named_modules("", false)) {
    if (!item.value()->as<torch::nn::Linear>()) continue;
    const std::string& path = item.key();
    auto dot = path.rfind('.');
    const std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
    const bool named = std::find(targets.begin(), targets.end(), last) != targets.end();
    const bool adapted = std::find(a.report.adapted.begin(), a.report.adapted.end(), path) != a.report.adapted.end();
    exact = exact || (named && !adapted);
  }
  nlohmann::json modules_to_save = peft_modules_to_save(model, a.report.trained_in_full);
  nlohmann::json out = {
      {"peft_type", "LORA"},
      {"task_type", a.task_type},
      {"base_model_name_or_path", a.base_model},
      {"r", a.settings.r},
      {"lora_alpha", a.settings.alpha},
      {"lora_dropout", a.settings.dropout},
      {"use_rslora", a.settings.rslora},
      {"target_modules", exact ? nlohmann::json(a.report.adapted) : nlohmann::json(targets)},
      {"modules_to_save", modules_to_save.empty() ? nlohmann::json() : modules_to_save},
      {"bias", lora_bias_name(a.settings.bias)},
      {"fan_in_fan_out", false},
      {"init_lora_weights", true},
      {"inference_mode", true},
      {"revision", nullptr},
  };
  return out;
}

void write_peft_adapter(TaskModel& model, const AdapterExport& a, const std::string& dir) {
  fs::create_directories(dir);
  const std::set<std::string> whole(a.report.trained_in_full.begin(), a.report.trained_in_full.end());
  std::vector<torch::Tensor> keep;  // owns contiguous float copies while writing
  std::vector<SafetensorsTensorView> views;
  for (const auto& p : model.named_parameters()) {
    const bool adapter = p.key().find(".lora_A.") != std::string::npos || p.key().find(".lora_B.") != std::string::npos;
    if (!adapter && !whole.count(p.key())) continue;
    auto t = p.value().detach().to(torch::kCPU, torch::kFloat32).contiguous();
    keep.push_back(t);
    views.push_back({peft_key(p.key()), "F32", t.sizes().vec(), t.data_ptr()});
  }
  write_safetensors((fs::path(dir) / "adapter_model.safetensors").string(), views);
  const std::string config = (fs::path(dir) / "adapter_config.json").string();
  std::ofstream out(config);
  out << peft_adapter_config(model, a).dump(2) << "\n";
  require_written(out, config);
}

}  // namespace runner
