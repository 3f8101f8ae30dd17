// Named tensors to and from bytes in the safetensors layout (8-byte header
// length, JSON header, raw little-endian data), for the training state.
#pragma once

#include "optim/optimizer.h"

#include <string>

namespace runner {

std::string encode_tensors(const TensorMap& tensors);
// `origin` names the file in error messages; throws InputError on malformed input.
TensorMap decode_tensors(const std::string& bytes, const std::string& origin);

}  // namespace runner
