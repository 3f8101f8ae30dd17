// Named tensors to and from bytes in the safetensors layout (8-byte header
// length, JSON header, raw little-endian data), for the training state.
#pragma once

#include "optim/optimizer.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

// The safetensors layout as its header and a view of each tensor's bytes, in
// order, for a writer that streams them: `owner` keeps the viewed memory alive
// (the tensors themselves when they are contiguous CPU tensors, else copies).
struct EncodedTensors {
  std::string header;  // the 8-byte length and the JSON header
  std::vector<std::string_view> data;
  std::shared_ptr<const void> owner;
};
EncodedTensors encode_tensor_views(const TensorMap& tensors);
std::string encode_tensors(const TensorMap& tensors);  // header and data in one string
// `origin` names the file in error messages; throws InputError on malformed input.
TensorMap decode_tensors(const std::string& bytes, const std::string& origin);

}  // namespace runner
