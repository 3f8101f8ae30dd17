#include "model/adapter_config.h"

#include "util/diagnostic.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

namespace fs = std::filesystem;

namespace runner {
namespace {

[[noreturn]] void refuse(const std::string& file, const std::string& key, const std::string& message,
                         const std::string& fix) {
  throw InputError(make_error(SourceLocation{file, 0, 0, {}}, key, message, fix));
}

TaskHead head_of_task_type(const nlohmann::json& j, const std::string& path) {
  const std::string type = j.value("task_type", nlohmann::json()).is_string() ? j["task_type"].get<std::string>() : "";
  if (type == "SEQ_CLS") return TaskHead::SequenceClassification;
  if (type == "TOKEN_CLS") return TaskHead::TokenClassification;
  if (type == "QUESTION_ANS") return TaskHead::QuestionAnswering;
  refuse(path, "task_type", fmt::format("expected SEQ_CLS, TOKEN_CLS or QUESTION_ANS, found {}", j.value("task_type", nlohmann::json()).dump()),
         "the runner reads adapters of encoder tasks: sequence and token classification, question answering");
}

// What PEFT can write but changes the adapted model in ways the runner does not compute.
void refuse_unsupported(const nlohmann::json& j, const std::string& path) {
  auto set_flag = [&](const char* key) { return j.contains(key) && j[key].is_boolean() && j[key].get<bool>(); };
  for (const char* key : {"use_dora", "lora_bias", "fan_in_fan_out", "use_qalora"})
    if (set_flag(key)) refuse(path, key, fmt::format("{} = true is not read", key), "train the adapter without it");
  for (const char* key : {"rank_pattern", "alpha_pattern"})
    if (j.contains(key) && !j[key].is_null() && !j[key].empty())
      refuse(path, key, "per-layer ranks and alphas are not read", "train with one r and lora_alpha for every layer");
  for (const char* key : {"layers_to_transform", "layer_replication", "target_parameters"})
    if (j.contains(key) && !j[key].is_null()) refuse(path, key, fmt::format("{} is not read", key), "leave it unset");
}

std::vector<std::string> target_modules(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json t = j.value("target_modules", nlohmann::json());
  if (t.is_string())
    refuse(path, "target_modules", "a regular expression for target_modules is not read",
           "list the module names (\"query\", \"value\") when you create the LoraConfig");
  std::vector<std::string> out;
  if (t.is_array())
    for (const auto& name : t)
      if (name.is_string()) out.push_back(name.get<std::string>());
  if (out.empty() || !t.is_array() || out.size() != t.size())
    refuse(path, "target_modules", "expected a list of module names", "save the adapter with PEFT's save_pretrained");
  return out;
}

}  // namespace

bool is_adapter_folder(const std::string& folder) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(folder) / "adapter_config.json", ec);
}

AdapterConfig read_adapter_config(const std::string& folder) {
  const std::string path = (fs::path(folder) / "adapter_config.json").string();
  const nlohmann::json j = read_json_document(path, "", "PEFT's save_pretrained writes it beside adapter_model.safetensors");
  if (!j.is_object()) refuse(path, "", "expected a JSON object", "save the adapter with PEFT's save_pretrained");
  if (j.value("peft_type", nlohmann::json()) != "LORA")
    refuse(path, "peft_type", fmt::format("expected \"LORA\", found {}", j.value("peft_type", nlohmann::json()).dump()),
           "the runner reads LoRA adapters only");
  refuse_unsupported(j, path);
  AdapterConfig c;
  c.head = head_of_task_type(j, path);
  c.lora.enabled = true;
  const nlohmann::json r = j.value("r", nlohmann::json()), alpha = j.value("lora_alpha", nlohmann::json());
  if (!r.is_number_integer() || r.get<long long>() < 1) refuse(path, "r", "expected an integer of at least 1", "save the adapter with PEFT");
  if (!alpha.is_number() || !(alpha.get<double>() > 0) || !std::isfinite(alpha.get<double>()))
    refuse(path, "lora_alpha", "expected a number above 0", "save the adapter with PEFT");
  c.lora.r = r.get<long long>();
  c.lora.alpha = alpha.get<double>();
  c.lora.rslora = j.value("use_rslora", nlohmann::json(false)) == true;
  c.lora.target_modules = target_modules(j, path);
  const nlohmann::json base = j.value("base_model_name_or_path", nlohmann::json());
  if (base.is_string()) c.base = base.get<std::string>();
  return c;
}


}  // namespace runner
