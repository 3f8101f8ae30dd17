// The safetensors format (https://huggingface.co/docs/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON header, then the raw
// little-endian C-contiguous tensor bytes. Torch-free: the reader maps the file
// and hands out byte ranges; model/ turns them into tensors.
#pragma once

#include "model/mapped_file.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace runner {

// Bytes per element of a safetensors dtype name ("F32" -> 4); 0 when unknown.
size_t safetensors_dtype_size(const std::string& dtype);

// The largest header this reader accepts: the reference Rust reader's limit.
constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;

struct SafetensorsEntry {
  std::string name;
  std::string dtype;           // "F32", "F16", "BF16", "I64", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // relative to the first byte after the header
  size_t numel() const;
};

class SafetensorsFile {
 public:
  // Maps and validates the whole file: a sane header length inside the file,
  // UTF-8 JSON, known dtypes, byte lengths equal to dtype size x shape, offsets
  // inside the data section, no overlaps and no holes. Throws InputError naming
  // the file and the tensor.
  explicit SafetensorsFile(const std::string& path);

  const std::string& path() const { return file_->path(); }
  const std::vector<SafetensorsEntry>& entries() const { return entries_; }  // header order
  const SafetensorsEntry* find(const std::string& name) const;
  const uint8_t* data(const SafetensorsEntry& e) const { return data_start_ + e.begin; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  std::shared_ptr<MappedFile> file_;
  const uint8_t* data_start_ = nullptr;
  std::vector<SafetensorsEntry> entries_;
  std::map<std::string, size_t> index_;  // name -> position in entries_
  std::map<std::string, std::string> metadata_;
};

struct SafetensorsTensorView {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  const void* data = nullptr;  // dtype size x numel bytes, C-contiguous little-endian
};

// Writes a file the reference readers accept: compact header padded with spaces
// to a multiple of 8, tensors ordered as the Rust writer orders them (larger
// dtypes first, then by name). Writes to PATH.tmp and renames, so a crash never
// leaves a half-written file under the final name. Throws std::runtime_error.
void write_safetensors(const std::string& path, const std::vector<SafetensorsTensorView>& tensors,
                       const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

}  // namespace runner
