#include "model/lora.h"

#include "model/dense.h"
#include "model/encoder_ops.h"
#include "util/diagnostic.h"
#include "util/suggest.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

// PEFT's rule for a name in a list: the module's full dotted path is it, or
// ends with "." followed by it.
bool path_matches(const std::string& path, const std::string& name) {
  if (path == name) return true;
  return path.size() > name.size() && path.compare(path.size() - name.size(), name.size(), name) == 0 &&
         path[path.size() - name.size() - 1] == '.';
}

bool has_prefix(const std::string& s, const std::string& prefix) {
  return s.size() > prefix.size() && s.compare(0, prefix.size(), prefix) == 0 && s[prefix.size()] == '.';
}

std::string last_name(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

struct ModuleTable {
  std::vector<std::pair<std::string, torch::nn::Linear>> linears;  // named_modules() order
  std::vector<std::string> all;                                    // every module path
};

ModuleTable module_table(TaskModel& model) {
  ModuleTable t;
  for (const auto& item : model.named_modules("", /*include_self=*/false)) {
    t.all.push_back(item.key());
    if (auto linear = std::dynamic_pointer_cast<torch::nn::LinearImpl>(item.value()))
      t.linears.emplace_back(item.key(), torch::nn::Linear(linear));
  }
  return t;
}

// The distinct last names of the Linear layers ("query", "dense" ...), in model order.
std::vector<std::string> linear_names(const ModuleTable& t) {
  std::vector<std::string> names;
  for (const auto& [path, _] : t.linears)
    if (std::find(names.begin(), names.end(), last_name(path)) == names.end()) names.push_back(last_name(path));
  return names;
}

[[noreturn]] void refuse_name(const std::string& key, const std::string& name, const std::string& what,
                              const std::vector<std::string>& known, const std::string& model_type) {
  std::string hint = did_you_mean(name, known);
  hint += (hint.empty() ? "" : "; ") + fmt::format("the {} model's {}: {}", model_type, what, fmt::join(known, ", "));
  throw InputError(make_error({}, key, fmt::format("\"{}\" names no module of the {} model", name, model_type), hint));
}

std::vector<std::string> chosen_targets(const LoraSettings& s, const std::string& model_type,
                                        const ModuleTable& t) {
  if (!s.target_modules.empty()) return s.target_modules;
  std::vector<std::string> preset = lora_preset_targets(model_type);
  if (preset.empty())
    throw InputError(make_error({}, "lora.target_modules",
                                fmt::format("the {} model has no preset of adapted layers", model_type),
                                fmt::format("name them in lora.target_modules; its Linear modules: {}",
                                            fmt::join(linear_names(t), ", "))));
  return preset;
}

// PEFT's LoraLayer.update_layer: lora_A and lora_B built as nn.Linear (each
// drawing LibTorch's default init, as PyTorch's does), then A redrawn by
// kaiming_uniform(a = sqrt(5)) and B zeroed.
void add_adapter(torch::nn::Linear& layer, const LoraSettings& s) {
  const int64_t in = layer->weight.size(1), out = layer->weight.size(0);
  torch::nn::Linear down(torch::nn::LinearOptions(in, s.r).bias(false));
  torch::nn::Linear up(torch::nn::LinearOptions(s.r, out).bias(false));
  {
    torch::NoGradGuard no_grad;
    torch::nn::init::kaiming_uniform_(down->weight, std::sqrt(5.0));
    up->weight.zero_();
  }
  down->to(layer->weight.device(), layer->weight.scalar_type());
  up->to(layer->weight.device(), layer->weight.scalar_type());
  layer->register_module("lora_A", down);
  layer->register_module("lora_B", up);
  layer->register_module("lora_dropout", LoraBranch(down, up, s.scale(), s.dropout));
}

// Whether parameter `name` trains whole under the settings.
struct TrainWhole {
  std::vector<std::string> saved_modules;  // paths matched by modules_to_save
  std::vector<std::string> adapted;        // paths with adapters (for bias = lora_only)
  const std::vector<std::string>& newly_initialised;
  LoraBias bias;

  bool operator()(const std::string& name) const {
    if (std::find(newly_initialised.begin(), newly_initialised.end(), name) != newly_initialised.end()) return true;
    for (const auto& m : saved_modules)
      if (has_prefix(name, m)) return true;
    if (last_name(name) != "bias") return false;
    if (bias == LoraBias::All) return true;
    if (bias == LoraBias::LoraOnly)
      for (const auto& m : adapted)
        if (name == m + ".bias") return true;
    return false;
  }
};

bool is_adapter_parameter(const std::string& name) {
  return name.find(".lora_A.") != std::string::npos || name.find(".lora_B.") != std::string::npos;
}

}  // namespace

LoraBranchImpl::LoraBranchImpl(torch::nn::Linear down_, torch::nn::Linear up_, double scale_, double dropout_)
    : down(std::move(down_)), up(std::move(up_)), scale(scale_), dropout(dropout_) {}

torch::Tensor LoraBranchImpl::add_delta(torch::Tensor y, int64_t column, const torch::Tensor& x) {
  // PEFT applies no dropout module at p = 0 (nn.Identity): nothing is drawn.
  const torch::Tensor in = dropout > 0 ? train_dropout(x, dropout, is_training()) : x;
  const torch::Tensor down_out = dense(in, down->weight, {});
  // The scale rides on the product as its alpha, and y is the accumulator: no pass of their own.
  if (dense_accumulate_applies(y, down_out, up->weight))
    return dense_accumulate(std::move(y), column, down_out, up->weight, scale);
  const torch::Tensor product = dense(down_out, up->weight, {}) * scale;
  if (column == 0 && product.size(-1) == y.size(-1)) return y + product;
  const int64_t out = up->weight.size(0);
  return torch::cat({y.narrow(-1, 0, column), y.narrow(-1, column, out) + product,
                     y.narrow(-1, column + out, y.size(-1) - column - out)}, -1);
}

LoraBranchImpl* lora_branch_of(const torch::nn::Linear& layer) {
  for (const auto& child : layer->children())
    if (auto* branch = dynamic_cast<LoraBranchImpl*>(child.get())) return branch;
  return nullptr;
}

torch::Tensor linear_forward(const torch::nn::Linear& layer, const torch::Tensor& x) {
  torch::Tensor y = dense(x, layer->weight, layer->bias);
  if (LoraBranchImpl* branch = lora_branch_of(layer)) return branch->add_delta(std::move(y), 0, x);
  return y;
}

LoraReport attach_lora(TaskModel& model, const LoraSettings& s, const std::string& model_type,
                       const std::vector<std::string>& newly_initialised) {
  LoraReport report;
  report.enabled = true;
  ModuleTable table = module_table(model);
  const std::vector<std::string> targets = chosen_targets(s, model_type, table);
  for (const auto& name : targets) {
    bool found = false;
    for (const auto& [path, _] : table.linears) found = found || path_matches(path, name);
    if (!found) refuse_name("lora.target_modules", name, "Linear modules", linear_names(table), model_type);
  }
  TrainWhole whole{{}, {}, newly_initialised, s.bias};
  for (const auto& name : s.modules_to_save) {
    bool found = false;
    for (const auto& path : table.all)
      if (path_matches(path, name)) { whole.saved_modules.push_back(path); found = true; }
    if (!found) refuse_name("lora.modules_to_save", name, "modules", table.all, model_type);
  }
  for (auto& [path, layer] : table.linears) {
    bool saved = false;
    for (const auto& m : whole.saved_modules) saved = saved || path == m || has_prefix(path, m);
    if (saved) continue;  // trained whole: an adapter on it would train twice over
    for (const auto& name : targets)
      if (path_matches(path, name)) {
        add_adapter(layer, s);
        report.adapted.push_back(path);
        break;
      }
  }
  whole.adapted = report.adapted;
  for (auto& p : model.named_parameters()) {
    const bool adapter = is_adapter_parameter(p.key());
    const bool trains = adapter || whole(p.key());
    p.value().requires_grad_(trains);
    if (trains && !adapter) report.trained_in_full.push_back(p.key());
    report.total += p.value().numel();
    if (trains) report.trainable += p.value().numel();
  }
  return report;
}

std::vector<std::string> merge_lora(TaskModel& model) {
  std::vector<std::string> merged;
  torch::NoGradGuard no_grad;
  for (auto& [path, layer] : module_table(model).linears) {
    LoraBranchImpl* branch = lora_branch_of(layer);
    if (!branch) continue;
    const torch::Tensor delta =
        branch->up->weight.to(torch::kFloat64).mm(branch->down->weight.to(torch::kFloat64)) * branch->scale;
    layer->weight.copy_((layer->weight.to(torch::kFloat64) + delta).to(layer->weight.scalar_type()));
    for (const char* name : {"lora_A", "lora_B", "lora_dropout"}) layer->unregister_module(name);
    merged.push_back(path);
  }
  return merged;
}

}  // namespace runner
