// pytorch_model.bin (torch.save's zip of data.pkl and storage records), read
// as safetensors.cpp reads its format: read_weights, then every tensor.
#include "fuzz_support.h"
#include "fuzz_targets.h"

namespace runner::fuzz {

void pytorch_bin(std::string_view bytes) { read_every_weight(write_scratch("pb/pytorch_model.bin", bytes)); }

}  // namespace runner::fuzz
