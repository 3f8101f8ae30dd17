#include "model/model_factory.h"

#include "model/base_weights.h"
#include "model/task_head.h"
#include "registry/registry.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <functional>
#include <map>
#include <mutex>

namespace fs = std::filesystem;

namespace runner {
namespace {

// The default CPU generator's state, restored on scope exit: from_pretrained
// draws nothing for the weights it loads.
class GeneratorStateGuard {
 public:
  GeneratorStateGuard() : gen_(at::detail::getDefaultCPUGenerator()) {
    std::lock_guard<std::mutex> lock(gen_.mutex());
    state_ = gen_.get_state();
  }
  ~GeneratorStateGuard() {
    std::lock_guard<std::mutex> lock(gen_.mutex());
    gen_.set_state(state_);
  }

 private:
  at::Generator gen_;
  at::Tensor state_;
};

[[noreturn]] void folder_error(const std::string& where, const std::string& key,
                               const std::string& message, const std::string& hint) {
  throw InputError(make_error(SourceLocation{where, 0, 0, {}}, key, message, hint));
}

nlohmann::json read_config_json(const std::string& folder) {
  std::string path = (fs::path(folder) / "config.json").string();
  nlohmann::json j = read_json_document(path, "", "a Hugging Face model folder holds config.json "
                                                  "beside its weights");
  if (!j.is_object())
    folder_error(path, "", "not a JSON object", "re-save the model with save_pretrained");
  return j;
}

// The Model component that reads `config`'s model_type; `path` names the file in errors.
std::string component_for_config(const nlohmann::json& config, const std::string& path) {
  const std::string known = fmt::format("{}", fmt::join(known_model_types(registry()), ", "));
  const nlohmann::json type = config.value("model_type", nlohmann::json());
  if (!type.is_string())
    folder_error(path, "model_type",
                 fmt::format("expected the model type as a string, found {}",
                             type.is_null() ? "none" : type.dump()),
                 "known model types: " + known);
  const Component* c = find_model_type(registry(), type.get<std::string>());
  if (!c)
    folder_error(path, "model_type",
                 fmt::format("unknown model_type \"{}\" (known model types: {})",
                             type.get<std::string>(), known),
                 "the runner trains the families it lists; `runner plugins` shows every model");
  return c->spec.name;
}

// The tensors of `state` whose shape the model's same-named parameter does
// not have, left out: a head of another label count is newly initialised, as
// from_pretrained's ignore_mismatched_sizes does.
void drop_mismatched(StateDict& state, TaskModel& model) {
  std::map<std::string, torch::Tensor> params;
  for (const auto& p : model.named_parameters()) params.emplace(p.key(), p.value());
  state.erase(std::remove_if(state.begin(), state.end(),
                             [&](const auto& entry) {
                               auto it = params.find(entry.first);
                               return it != params.end() && it->second.sizes() != entry.second.sizes();
                             }),
              state.end());
}

// Builds the modules from the family's config, then loads `weights` into them
// (if any) and initialises what the weights lacked.
LoadedModel construct_and_load(const std::string& component, const nlohmann::json& config,
                               const std::string& where, const std::string& weights,
                               const std::function<void(TaskModel&)>& before_load = {},
                               bool new_head = false) {
  const auto& family = registry().factory<ModelFamily>(Kind::Model, component);
  LoadedModel out;
  out.component = component;
  if (weights.empty()) {
    out.model = family.construct(config, Init::HuggingFace, where);
    return out;
  }
  {
    GeneratorStateGuard keep_rng;
    out.model = family.construct(config, Init::None, where);
    if (before_load) before_load(*out.model);
  }
  StateDict state = read_weights(weights);
  if (new_head) drop_mismatched(state, *out.model);
  out.report = load_state_dict(*out.model, state, weights);
  if (!out.report.missing.empty()) out.model->init_weights(out.report.missing);
  return out;
}

}  // namespace

std::string TaskModel::label_name(long long id) const {
  const nlohmann::json config = hf_config();
  const std::string key = std::to_string(id);
  if (config.contains("id2label") && config["id2label"].is_object() &&
      config["id2label"].contains(key) && config["id2label"][key].is_string())
    return config["id2label"][key].get<std::string>();
  return fmt::format("LABEL_{}", id);
}

LoadedModel build_model(const nlohmann::json& section, const ModelContext& context,
                        const std::string& weights, const LoraSettings& lora) {
  std::string component = section.value("type", std::string("bert"));
  const auto& family = registry().factory<ModelFamily>(Kind::Model, component);
  std::string pretrained = section.value("pretrained", std::string());
  std::string where = pretrained.empty() ? "[model] section" : pretrained + "/config.json";
  const nlohmann::json config = family.config(section, context);
  LoadedModel out;
  if (!lora.enabled) {
    out = construct_and_load(component, config, where, weights.empty() ? pretrained : weights);
  } else if (weights.empty() || !saved_base_digest(weights).empty()) {
    // As training built it; a run's file that holds only what trains goes over that.
    out = construct_and_load(component, config, where, pretrained);
    out.lora = attach_lora(*out.model, lora, component, out.report.missing);
    if (!weights.empty()) out.report = load_run_weights(*out.model, weights);
  } else {
    LoraReport attached;
    out = construct_and_load(component, config, where, weights, [&](TaskModel& m) {
      attached = attach_lora(m, lora, component, {});
    });
    out.lora = attached;
  }
  apply_model_settings(*out.model, section);
  return out;
}

void apply_model_settings(TaskModel& model, const nlohmann::json& section) {
  model.set_loss_over_padding(section.value("qa_loss_includes_padding", false));
  model.set_execution(section.value("execution", std::string("unpadded")) == "padded" ? Execution::Padded
                                                                                      : Execution::Unpadded);
  model.set_gradient_checkpointing(section.value("gradient_checkpointing", false));
}

std::shared_ptr<TaskModel> make_model(const nlohmann::json& section,
                                               const ModelContext& context) {
  LoadedModel loaded = build_model(section, context);
  std::string warning = loaded.report.warning();
  if (!warning.empty()) fmt::print(stderr, "warning: {}\n", warning);
  return loaded.model;
}

std::string model_component_for_folder(const std::string& folder) {
  return component_for_config(read_config_json(folder), (fs::path(folder) / "config.json").string());
}

LoadedModel load_model_folder(const std::string& folder, const std::string& weights) {
  std::string where = (fs::path(folder) / "config.json").string();
  nlohmann::json config = read_config_json(folder);
  LoadedModel loaded = construct_and_load(component_for_config(config, where), config, where,
                                          weights.empty() ? folder : weights);
  // Every family's config.json names its position table so (the family checked its size).
  const auto positions = config.find("max_position_embeddings");
  if (positions != config.end() && positions->is_number_integer())
    loaded.max_positions = positions->get<long long>();
  return loaded;
}

namespace {

// `folder`'s config.json with `context`'s head and label count; `same_labels`
// says whether its labels were already those.
nlohmann::json config_for_task(const std::string& folder, const ModelContext& context, bool& same_labels) {
  nlohmann::json config = with_task_head(read_config_json(folder), context.head);
  // A head of another size describes other classes: its names go, as from_pretrained drops them.
  same_labels = config.value("num_labels", context.num_labels) == context.num_labels &&
                config.value("id2label", nlohmann::json::object()).size() == static_cast<size_t>(context.num_labels);
  config["num_labels"] = context.num_labels;
  if (!same_labels) config.erase("id2label"), config.erase("label2id");
  if (!same_labels || context.head != TaskHead::SequenceClassification) config.erase("problem_type");
  return config;
}

}  // namespace

std::shared_ptr<TaskModel> model_folder_skeleton(const std::string& folder, const ModelContext& context) {
  const std::string where = (fs::path(folder) / "config.json").string();
  bool same_labels = false;
  const nlohmann::json config = config_for_task(folder, context, same_labels);
  GeneratorStateGuard keep_rng;
  return registry().factory<ModelFamily>(Kind::Model, component_for_config(config, where)).construct(config, Init::None, where);
}

LoadedModel load_model_folder_as(const std::string& folder, const ModelContext& context, const LoraSettings& lora) {
  const std::string where = (fs::path(folder) / "config.json").string();
  bool same_labels = false;
  const nlohmann::json config = config_for_task(folder, context, same_labels);
  const std::string component = component_for_config(config, where);
  LoadedModel out = construct_and_load(component, config, where, folder, {}, !same_labels);
  if (lora.enabled) out.lora = attach_lora(*out.model, lora, component, out.report.missing);
  out.max_positions = config.value("max_position_embeddings", 0LL);
  return out;
}

}  // namespace runner
