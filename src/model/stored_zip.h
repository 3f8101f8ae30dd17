// The records of a zip archive that stores them uncompressed, as torch.save
// writes its pytorch_model.bin: names mapped to their bytes inside the mapped
// file. A compressed record, a zip64 archive or a structure that runs past the
// end of the file is an InputError naming the file.
#pragma once

#include "model/mapped_file.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace runner {

struct ZipRecord {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

std::map<std::string, ZipRecord> read_stored_zip(const MappedFile& f);

// The little-endian unsigned integer of `bytes` bytes at `p`.
inline uint64_t read_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace runner
