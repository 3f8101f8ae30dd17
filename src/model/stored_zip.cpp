#include "model/stored_zip.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

namespace runner {
namespace {

[[noreturn]] void zip_error(const std::string& path, const std::string& message) {
  throw InputError(make_error(SourceLocation{path, 0, 0, {}}, "", message,
                              "the file is truncated or corrupt, or not written by torch.save; "
                              "model.safetensors is the safer format"));
}

}  // namespace

std::map<std::string, ZipRecord> read_stored_zip(const MappedFile& f) {
  const uint8_t* base = f.data();
  const size_t size = f.size();
  auto need = [&](uint64_t offset, uint64_t n) {
    if (offset > size || n > size - offset) zip_error(f.path(), "a zip structure runs past the end of the file");
  };
  if (size < 22) zip_error(f.path(), "too small to be a torch.save zip archive");
  if (read_le(base, 4) != 0x04034b50)
    zip_error(f.path(), "not a zip archive: this is the legacy (pre torch 1.6) pickle format or "
                        "not a PyTorch file; load and re-save it with a newer torch, or convert "
                        "it to model.safetensors");
  size_t eocd = size - 22;
  size_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
  while (read_le(base + eocd, 4) != 0x06054b50) {
    if (eocd == lowest) zip_error(f.path(), "no zip end-of-directory record: the file is truncated");
    --eocd;
  }
  uint64_t count = read_le(base + eocd + 10, 2), cd = read_le(base + eocd + 16, 4);
  if (count == 0xffff || cd == 0xffffffff)
    zip_error(f.path(), "a zip64 archive (over 4 GiB) is not supported; use model.safetensors");
  std::map<std::string, ZipRecord> records;
  uint64_t p = cd;
  for (uint64_t i = 0; i < count; ++i) {
    need(p, 46);
    if (read_le(base + p, 4) != 0x02014b50) zip_error(f.path(), "corrupt zip central directory");
    uint64_t method = read_le(base + p + 10, 2), csize = read_le(base + p + 20, 4);
    uint64_t name_len = read_le(base + p + 28, 2), extra = read_le(base + p + 30, 2), comment = read_le(base + p + 32, 2);
    uint64_t local = read_le(base + p + 42, 4);
    need(p + 46, name_len);
    std::string name(reinterpret_cast<const char*>(base + p + 46), name_len);
    if (method != 0) zip_error(f.path(), fmt::format("zip record '{}' is compressed; torch.save writes "
                                                     "stored records only", name));
    need(local, 30);
    uint64_t data = local + 30 + read_le(base + local + 26, 2) + read_le(base + local + 28, 2);
    need(data, csize);
    records[name] = ZipRecord{base + data, csize};
    p += 46 + name_len + extra + comment;
  }
  return records;
}

}  // namespace runner
