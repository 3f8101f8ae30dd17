#include "model/checkpoint.h"
#include "model/model_budget.h"
#include "hub/repo_files.h"

#include "model/pytorch_bin.h"
#include "model/safetensors.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/output_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace runner {
namespace {

torch::ScalarType scalar_type(const std::string& dtype, const std::string& file,
                              const std::string& name) {
  static const std::map<std::string, torch::ScalarType> types = {
      {"F64", torch::kFloat64}, {"F32", torch::kFloat32}, {"F16", torch::kFloat16},
      {"BF16", torch::kBFloat16}, {"I64", torch::kInt64},  {"I32", torch::kInt32},
      {"I16", torch::kInt16},    {"I8", torch::kInt8},     {"U8", torch::kUInt8},
      {"BOOL", torch::kBool}};
  auto it = types.find(dtype);
  if (it == types.end())
    throw InputError(make_error(SourceLocation{file, 0, 0, {}}, "tensor '" + name + "'",
                                "dtype " + dtype + " cannot be loaded into a model"));
  return it->second;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

[[noreturn]] void folder_error(const std::string& where, const std::string& message,
                               const std::string& hint) {
  throw InputError(make_error(SourceLocation{where, 0, 0, {}}, "", message, hint));
}

// weight_map file names of a sharded checkpoint's index, in first-use order.
std::vector<std::string> shard_files(const std::string& index_path) {
  nlohmann::json j = read_json_document(index_path, "", "re-save the model with save_pretrained");
  if (!j.is_object() || !j.contains("weight_map") || !j.at("weight_map").is_object())
    folder_error(index_path, "not a sharded-checkpoint index: expected {\"weight_map\": {...}}",
                 "re-save the model with save_pretrained");
  std::vector<std::string> files;
  for (const auto& [name, file] : j.at("weight_map").items()) {
    if (!file.is_string()) folder_error(index_path, "weight_map['" + name + "'] is not a file name", "");
    std::string f = file.get<std::string>();
    if (f.find('/') != std::string::npos || f == "..")
      folder_error(index_path, "shard name '" + f + "' leaves the model folder", "");
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  }
  return files;
}

// HF's key fixes: legacy LayerNorm gamma/beta, and a bare base-model
// checkpoint (BertModel, DistilBertModel ...) whose keys lack the prefix the
// classifier's base model has ("bert.", "distilbert.", "electra.").
std::string model_key(const std::string& key, const std::set<std::string>& params,
                      const std::string& base_prefix) {
  std::string k = key;
  if (ends_with(k, ".gamma")) k = k.substr(0, k.size() - 6) + ".weight";
  else if (ends_with(k, ".beta")) k = k.substr(0, k.size() - 5) + ".bias";
  if (!params.count(k) && params.count(base_prefix + k)) k = base_prefix + k;
  return k;
}

// Hugging Face's embeddings buffers (position_ids, token_type_ids): checkpoints
// saved by transformers before 4.31 carry them (all-MiniLM-L6-v2 does); it
// drops buffers from its unexpected keys, and the runner computes them.
bool is_hf_buffer(const std::string& key) {
  return ends_with(key, "embeddings.position_ids") || ends_with(key, "embeddings.token_type_ids");
}

// The base model's prefix: the first name component of the first parameter.
std::string base_model_prefix(const torch::OrderedDict<std::string, torch::Tensor>& params) {
  if (params.is_empty()) return {};
  const std::string& first = params.begin()->key();
  auto dot = first.find('.');
  return dot == std::string::npos ? std::string() : first.substr(0, dot + 1);
}

std::string shape_str(c10::IntArrayRef s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

}  // namespace

StateDict read_safetensors_weights(const std::string& file) {
  auto st = std::make_shared<SafetensorsFile>(file);
  StateDict out;
  for (const auto& e : st->entries()) {
    auto type = scalar_type(e.dtype, file, e.name);
    // The deleter keeps the mapping alive as long as the tensor.
    auto t = torch::from_blob(const_cast<uint8_t*>(st->data(e)), e.shape, [st](void*) {},
                              torch::TensorOptions().dtype(type));
    out.emplace_back(e.name, t);
  }
  return out;
}

StateDict read_pytorch_bin_weights(const std::string& file) {
  auto bin = std::make_shared<PytorchBinFile>(file);
  StateDict out;
  for (const auto& t : bin->tensors()) {
    auto type = scalar_type(t.dtype, file, t.name);
    int64_t elems = static_cast<int64_t>(t.storage_bytes / safetensors_dtype_size(t.dtype));
    auto storage = torch::from_blob(const_cast<uint8_t*>(t.storage), {elems}, [bin](void*) {},
                                    torch::TensorOptions().dtype(type));
    out.emplace_back(t.name, storage.as_strided(t.shape, t.strides, t.storage_offset));
  }
  return out;
}

std::string find_weights_file(const std::string& folder) {
  for (const auto& name : hub::weight_file_names()) {
    fs::path p = fs::path(folder) / name;
    if (fs::is_regular_file(p)) return p.string();
  }
  folder_error(folder, fmt::format("no weights: expected one of {} in the folder", fmt::join(hub::weight_file_names(), ", ")),
               "point model.pretrained at a folder written by save_pretrained, or leave it "
               "empty to start from random weights");
}

StateDict read_weights(const std::string& path) {
  std::string file = fs::is_directory(path) ? find_weights_file(path) : path;
  if (hub::is_shard_index(file)) {
    StateDict all;
    for (const auto& shard : shard_files(file)) {
      auto part = read_weights((fs::path(file).parent_path() / shard).string());
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }
  if (ends_with(file, ".safetensors")) return read_safetensors_weights(file);
  if (ends_with(file, ".bin") || ends_with(file, ".pt") || ends_with(file, ".pth"))
    return read_pytorch_bin_weights(file);
  folder_error(file, "unknown weight file type", "expected .safetensors, .bin or .index.json");
}

std::string LoadReport::warning() const {
  std::string w;
  if (!missing.empty())
    w += fmt::format("{} parameters were not in {} and are newly initialised: {}", missing.size(),
                     source, fmt::join(missing, ", "));
  if (!unexpected.empty())
    w += fmt::format("{}{} checkpoint tensors are not used by this model and were ignored: {}",
                     w.empty() ? "" : "\n", unexpected.size(), fmt::join(unexpected, ", "));
  return w;
}

void LoadReport::require_complete(const std::string& hint) const {
  if (missing.empty()) return;
  throw InputError(make_error(SourceLocation{source, 0, 0, {}}, "",
                              fmt::format("the weight file lacks {} model parameters: {}", missing.size(),
                                          fmt::join(missing, ", ")),
                              hint));
}

LoadReport load_state_dict(torch::nn::Module& model, const StateDict& state,
                           const std::string& source) {
  LoadReport report;
  report.source = source;
  auto params = model.named_parameters();
  std::set<std::string> names, loaded;
  for (const auto& p : params) names.insert(p.key());
  const std::string prefix = base_model_prefix(params);
  torch::NoGradGuard no_grad;
  for (const auto& [key, tensor] : state) {
    std::string k = model_key(key, names, prefix);
    if (!names.count(k)) {
      if (!is_hf_buffer(key)) report.unexpected.push_back(key);
      continue;
    }
    if (k != key) report.renamed.push_back(key + " -> " + k);
    torch::Tensor& p = params[k];
    if (p.sizes() != tensor.sizes())
      throw InputError(make_error(
          SourceLocation{source, 0, 0, {}}, "tensor '" + key + "'",
          fmt::format("has shape {} but the model's {} has shape {}", shape_str(tensor.sizes()), k,
                      shape_str(p.sizes())),
          "the checkpoint's config.json and the recipe's [model] overrides or num_labels disagree"));
    p.copy_(tensor);
    loaded.insert(k);
  }
  for (const auto& p : params)
    if (!loaded.count(p.key())) report.missing.push_back(p.key());
  return report;
}

void save_pretrained(TaskModel& model, const std::string& dir) {
  fs::create_directories(dir);
  std::vector<torch::Tensor> keep;  // owns contiguous float copies while writing
  std::vector<SafetensorsTensorView> views;
  for (const auto& p : model.named_parameters()) {
    auto t = p.value().detach().to(torch::kCPU, torch::kFloat32).contiguous();
    keep.push_back(t);
    views.push_back({p.key(), "F32", t.sizes().vec(), t.data_ptr()});
  }
  write_safetensors((fs::path(dir) / "model.safetensors").string(), views);
  const std::string config = (fs::path(dir) / "config.json").string();
  std::ofstream out(config);
  out << model.hf_config().dump(2) << "\n";
  require_written(out, config);  // flushed and checked: a close cannot lose it unseen
}

}  // namespace runner
