#include "recipe/unsupported.h"

#include <map>

namespace runner {
namespace {

const char* kSeeReadme = " (README, \"What it does not do\")";

const std::map<std::string, std::string>& features() {
  static const std::string hub =
      "pushing to the Hugging Face Hub is not supported: `runner export RUN --to DIR` writes a folder that "
      "`huggingface-cli upload REPO DIR` sends";
  static const std::string onnx = "ONNX export is not supported: `runner export` writes a Hugging Face folder, which "
                                  "`optimum-cli export onnx --model DIR OUT` converts";
  static const std::string wandb = "Weights & Biases is not supported: run.loggers = [\"tensorboard\"] writes "
                                   "TensorBoard files, which `wandb sync --sync-tensorboard DIR` uploads";
  static const std::map<std::string, std::string> table = {
      {"push_to_hub", hub}, {"hub_model_id", hub}, {"hub_token", hub}, {"hub_strategy", hub},
      {"hub_private_repo", hub}, {"push", hub}, {"upload", hub},
      {"--onnx", onnx}, {"onnx", onnx},
      {"wandb", wandb}, {"wandb_project", wandb},
  };
  return table;
}

}  // namespace

std::optional<std::string> unsupported_feature(const std::string& name) {
  auto it = features().find(name);
  if (it == features().end()) return std::nullopt;
  return it->second + kSeeReadme;
}

}  // namespace runner
