// What the dataset tells a model family. Torch-free: a family's options and
// configuration (model/bert_component.h ...) are read by the front runner too.
#pragma once

#include <string>
#include <vector>

namespace runner {

struct ModelContext {
  long long num_labels = 2;               // 1 = regression (MSE)
  std::vector<std::string> label_names;   // id -> name; may be empty
};

}  // namespace runner
