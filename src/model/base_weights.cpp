#include "model/base_weights.h"

#include "model/safetensors.h"
#include "util/diagnostic.h"
#include "util/sha256.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace runner {

std::string frozen_weights_sha256(torch::nn::Module& model) {
  std::map<std::string, torch::Tensor> frozen;  // name order, whatever the registration order
  for (const auto& p : model.named_parameters())
    if (!p.value().requires_grad()) frozen.emplace(p.key(), p.value());
  if (frozen.empty()) return {};
  digest::Sha256 sha;
  for (const auto& [name, t] : frozen) {
    const torch::Tensor bytes = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    sha.update(fmt::format("{}\n{}\n", name, fmt::join(bytes.sizes().vec(), "x")));
    sha.update(bytes.data_ptr(), bytes.nbytes());
  }
  return sha.hex_digest();
}

std::string saved_base_digest(const std::string& file_or_folder) {
  std::error_code ec;
  const std::string file =
      fs::is_directory(file_or_folder, ec) ? (fs::path(file_or_folder) / "model.safetensors").string() : file_or_folder;
  if (file.size() < 12 || file.compare(file.size() - 12, 12, ".safetensors") != 0 || !fs::is_regular_file(file, ec))
    return {};
  const SafetensorsFile weights(file);
  const auto it = weights.metadata().find(kBaseWeightsKey);
  return it == weights.metadata().end() ? std::string() : it->second;
}

LoadReport load_run_weights(torch::nn::Module& model, const std::string& file_or_folder) {
  const std::string digest = saved_base_digest(file_or_folder);
  LoadReport report = load_state_dict(model, read_weights(file_or_folder), file_or_folder);
  if (digest.empty()) return report;
  const std::string base = frozen_weights_sha256(model);
  if (base != digest)
    throw InputError(make_error(
        SourceLocation{file_or_folder, 0, 0, {}}, "",
        fmt::format("its adapters were trained over frozen weights of sha256 {}, and model.pretrained gives {}",
                    digest.substr(0, 16), base.empty() ? "a model with nothing frozen" : base.substr(0, 16)),
        "point model.pretrained at the weights the run was trained on"));
  std::vector<std::string> trainable_missing;
  auto params = model.named_parameters();
  for (const auto& name : report.missing)
    if (params[name].requires_grad()) trainable_missing.push_back(name);
  report.missing = std::move(trainable_missing);
  return report;
}

}  // namespace runner
