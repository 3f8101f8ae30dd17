// model.safetensors as a model folder or a checkpoint is read: read_weights,
// then every tensor read to the last element (a view past the mapped bytes
// would fault here, not later in training).
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "model/checkpoint.h"

namespace runner::fuzz {

void read_every_weight(const std::string& path) {
  refusing_is_fine([&] {
    for (const auto& [name, tensor] : read_weights(path)) tensor.to(torch::kFloat64).sum().item<double>();
  });
}

void safetensors(std::string_view bytes) { read_every_weight(write_scratch("st/model.safetensors", bytes)); }

}  // namespace runner::fuzz
