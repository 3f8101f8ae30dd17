// Reader for pytorch_model.bin as torch.save writes it since torch 1.6: an
// uncompressed zip archive holding data.pkl (a pickled state dict) and one
// record per storage. Torch-free: a small zip directory reader and an
// unpickler that understands exactly what a state dict pickle contains
// (OrderedDict, _rebuild_tensor_v2, _rebuild_parameter, persistent storage
// ids). The LibTorch unpickler of 1.13 rejects the OrderedDict that
// torch.save(model.state_dict()) writes, hence this one.
#pragma once

#include "model/mapped_file.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace runner {

struct PickledTensor {
  std::string name;
  std::string dtype;              // safetensors dtype names: "F32", "F16", "BF16", "I64", ...
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;   // in elements
  int64_t storage_offset = 0;     // in elements
  const uint8_t* storage = nullptr;
  size_t storage_bytes = 0;
};

class PytorchBinFile {
 public:
  // Throws InputError naming the file (and the tensor) for anything unexpected.
  explicit PytorchBinFile(const std::string& path);
  const std::string& path() const { return file_->path(); }
  const std::vector<PickledTensor>& tensors() const { return tensors_; }  // pickle order

 private:
  std::shared_ptr<MappedFile> file_;
  std::vector<PickledTensor> tensors_;
};

}  // namespace runner
