// The pretrained models `runner init` offers before the presets: fine-tuning
// pretrained weights is the usual case, and training a preset from random
// weights gives far lower accuracy.
#pragma once

#include <string>
#include <vector>

namespace runner {

struct PretrainedOffer {
  std::string name;        // as a recipe's model.pretrained names it ("org/name" or a folder name)
  std::string model_type;  // the model component for its config.json's model_type ("bert", ...)
  std::string where;       // "pip package", "Hugging Face cache" or the model root
};

// The models this machine holds with their weights, without the network: the
// repositories of installed pip packages, of the Hugging Face cache, and the
// folders under the model root. Pip packages first (scripts/setup.sh installs one).
std::vector<PretrainedOffer> installed_pretrained_models();

// The local folder a model name reads as `runner run` reads it (a folder under
// the model root, the Hugging Face cache, a pip package; with the network,
// the Hub); "" with the reason in `problem` when it has no weights there.
std::string pretrained_folder(const std::string& name, std::string& problem);

// The model component for a Hugging Face folder (config.json's model_type);
// "bert" when it does not say.
std::string model_type_of(const std::string& folder);

}  // namespace runner
