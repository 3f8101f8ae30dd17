// Named tensors to and from bytes in the safetensors layout (8-byte header
// length, JSON header, raw little-endian data), for the training state.
#pragma once

#include "optim/optimizer.h"

#include <map>
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
// `metadata`, when not empty, is the header's "__metadata__" (string values).
using TensorMetadata = std::map<std::string, std::string>;
EncodedTensors encode_tensor_views(const TensorMap& tensors, const TensorMetadata& metadata = {});
std::string encode_tensors(const TensorMap& tensors);  // header and data in one string
// `origin` names the file in error messages; throws InputError on malformed input.
// `metadata`, when given, receives the header's "__metadata__" strings.
TensorMap decode_tensors(const std::string& bytes, const std::string& origin, TensorMetadata* metadata = nullptr);

}  // namespace runner
