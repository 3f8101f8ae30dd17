#include "model/peft_adapter.h"

#include "model/adapter_config.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace runner {
namespace {

const char* const kPrefix = "base_model.model.";

[[noreturn]] void refuse(const std::string& file, const std::string& key, const std::string& message,
                         const std::string& fix) {
  throw InputError(make_error(SourceLocation{file, 0, 0, {}}, key, message, fix));
}

std::string adapter_weights_file(const std::string& folder) {
  for (const char* name : {"adapter_model.safetensors", "adapter_model.bin"}) {
    const fs::path file = fs::path(folder) / name;
    if (fs::is_regular_file(file)) return file.string();
  }
  refuse(folder, "", "no adapter_model.safetensors (or adapter_model.bin) beside adapter_config.json",
         "save the adapter with PEFT's save_pretrained, or export a LoRA run with `runner export RUN --to DIR`");
}

// The adapter's tensors under the model's own names: PEFT's without "base_model.model.".
StateDict model_named(StateDict state, const std::string& file) {
  for (auto& [key, tensor] : state) {
    if (key.rfind(kPrefix, 0) != 0)
      refuse(file, key, fmt::format("expected every key to start with \"{}\", as PEFT saves them", kPrefix),
             "save the adapter with PEFT's save_pretrained");
    key = key.substr(std::string(kPrefix).size());
  }
  return state;
}

// The base's label count: config.json's num_labels, else its id2label's size, else 2.
long long base_labels(const std::string& base) {
  const nlohmann::json j = read_json_document((fs::path(base) / "config.json").string());
  if (j.is_object() && j.value("num_labels", nlohmann::json()).is_number_integer()) return j["num_labels"].get<long long>();
  if (j.is_object() && j.value("id2label", nlohmann::json()).is_object() && !j["id2label"].empty())
    return static_cast<long long>(j["id2label"].size());
  return 2;
}

// The label count the adapter's head has: a head row per label where the model
// built with `labels` has another count. Any other shape difference is an
// adapter of another base.
long long adapter_labels(TaskModel& model, const StateDict& state, long long labels, const std::string& file) {
  long long found = labels;
  for (const auto& p : model.named_parameters()) {
    for (const auto& [key, tensor] : state) {
      if (key != p.key() || tensor.sizes() == p.value().sizes()) continue;
      const bool label_rows = p.value().dim() >= 1 && tensor.dim() == p.value().dim() && p.value().size(0) == labels &&
                              tensor.sizes().slice(1) == p.value().sizes().slice(1) &&
                              (found == labels || found == tensor.size(0));
      if (!label_rows)
        refuse(file, key,
               fmt::format("shape {} does not fit the base's {}", fmt::join(tensor.sizes(), "x"),
                           fmt::join(p.value().sizes(), "x")),
               "load the adapter onto the base model it was trained on (adapter_config.json's "
               "base_model_name_or_path)");
      found = tensor.size(0);
    }
  }
  return found;
}

}  // namespace

LoadedModel load_adapter_folder(const std::string& adapter_folder, const std::string& base_folder) {
  const AdapterConfig config = read_adapter_config(adapter_folder);
  const std::string file = adapter_weights_file(adapter_folder);
  const StateDict state = model_named(read_weights(file), file);
  ModelContext context{config.head == TaskHead::QuestionAnswering ? 2 : base_labels(base_folder), {}, {}, config.head};
  // The head's label count from the adapter's shapes, on modules built without weights:
  // the base's weights are read once, for the model of the right size.
  if (config.head != TaskHead::QuestionAnswering)
    context.num_labels = adapter_labels(*model_folder_skeleton(base_folder, context), state, context.num_labels, file);
  LoadedModel loaded = load_model_folder_as(base_folder, context, config.lora);
  const LoadReport adapter = load_state_dict(*loaded.model, state, file);
  if (!adapter.unexpected.empty())
    refuse(file, adapter.unexpected.front(),
           fmt::format("{} of the adapter's tensors are no parameter of the base's {} model (the first named here)",
                       adapter.unexpected.size(), loaded.component),
           "load the adapter onto the base model it was trained on (adapter_config.json's base_model_name_or_path)");
  const std::set<std::string> not_in_adapter(adapter.missing.begin(), adapter.missing.end());
  std::vector<std::string> still_missing;
  for (const auto& name : loaded.report.missing)
    if (not_in_adapter.count(name)) still_missing.push_back(name);  // neither the base nor the adapter has it
  for (const auto& p : loaded.model->named_parameters())
    if (p.key().find(".lora_") != std::string::npos && not_in_adapter.count(p.key()))
      refuse(file, p.key(), "the adapter lacks this tensor of its own target_modules",
             "save the adapter with PEFT's save_pretrained");
  loaded.report.missing = still_missing;
  loaded.report.unexpected.clear();
  return loaded;
}

}  // namespace runner
