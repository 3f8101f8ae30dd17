#include "model/safetensors.h"

#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/output_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace runner {
namespace {

[[noreturn]] void format_error(const std::string& path, const std::string& tensor,
                               const std::string& message) {
  throw InputError(make_error(
      SourceLocation{path, 0, 0, {}}, tensor.empty() ? "" : "tensor '" + tensor + "'", message,
      "the file is truncated or corrupt, or not a safetensors file: re-download or re-export it"));
}

uint64_t read_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::vector<int64_t> parse_shape(const nlohmann::json& j, const std::string& path,
                                 const std::string& name) {
  if (!j.is_array()) format_error(path, name, "\"shape\" is not a list of integers");
  std::vector<int64_t> shape;
  for (const auto& d : j) {
    if (!d.is_number_unsigned()) format_error(path, name, "\"shape\" has a non-integer or negative dimension " + d.dump());
    uint64_t v = d.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      format_error(path, name, "a dimension is too large");
    shape.push_back(static_cast<int64_t>(v));
  }
  return shape;
}

// Bytes the shape needs, or an error when it overflows 64 bits.
uint64_t expected_bytes(const SafetensorsEntry& e, size_t elem, const std::string& path) {
  uint64_t bytes = elem;
  for (int64_t d : e.shape) {
    if (d != 0 && bytes > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d))
      format_error(path, e.name, "the shape's byte size overflows 64 bits");
    bytes *= static_cast<uint64_t>(d);
  }
  return bytes;
}

SafetensorsEntry parse_entry(const std::string& name, const nlohmann::json& j,
                             const std::string& path) {
  if (!j.is_object()) format_error(path, name, "header entry is not an object");
  SafetensorsEntry e;
  e.name = name;
  if (!j.contains("dtype") || !j.at("dtype").is_string())
    format_error(path, name, "header entry has no \"dtype\" string");
  e.dtype = j.at("dtype").get<std::string>();
  size_t elem = safetensors_dtype_size(e.dtype);
  if (elem == 0)
    format_error(path, name, fmt::format("unknown dtype \"{}\" (expected F64, F32, F16, BF16, "
                                         "I64, I32, I16, I8, U8 or BOOL)", e.dtype));
  if (!j.contains("shape")) format_error(path, name, "header entry has no \"shape\"");
  e.shape = parse_shape(j.at("shape"), path, name);
  const auto* off = j.contains("data_offsets") ? &j.at("data_offsets") : nullptr;
  if (!off || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
      !(*off)[1].is_number_unsigned())
    format_error(path, name, "\"data_offsets\" is not a pair of non-negative integers");
  e.begin = (*off)[0].get<uint64_t>();
  e.end = (*off)[1].get<uint64_t>();
  if (e.end < e.begin)
    format_error(path, name, fmt::format("data_offsets [{}, {}] end before they begin", e.begin, e.end));
  uint64_t want = expected_bytes(e, elem, path);
  if (e.end - e.begin != want)
    format_error(path, name,
                 fmt::format("data_offsets [{}, {}] hold {} bytes, but dtype {} with shape [{}] "
                             "needs {} bytes", e.begin, e.end, e.end - e.begin, e.dtype,
                             fmt::join(e.shape, ", "), want));
  return e;
}

// Tensors must tile the data section exactly: sorted by offset, each starts where
// the previous ended, and the last ends at the end of the file.
void check_layout(std::vector<SafetensorsEntry> sorted, uint64_t data_size, const std::string& path) {
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  uint64_t cursor = 0;
  const SafetensorsEntry* prev = nullptr;
  for (const auto& e : sorted) {
    if (e.end > data_size)
      format_error(path, e.name,
                   fmt::format("data_offsets [{}, {}] run past the end of the data section ({} "
                               "bytes): the file is truncated", e.begin, e.end, data_size));
    if (e.begin < cursor)
      format_error(path, e.name, fmt::format("data_offsets [{}, {}] overlap tensor '{}' at [{}, {}]",
                                             e.begin, e.end, prev->name, prev->begin, prev->end));
    if (e.begin > cursor)
      format_error(path, e.name, fmt::format("data_offsets [{}, {}] leave a hole of {} bytes before it",
                                             e.begin, e.end, e.begin - cursor));
    cursor = e.end;
    prev = &e;
  }
  if (cursor != data_size)
    format_error(path, "", fmt::format("the tensors cover {} bytes but the data section has {} "
                                       "bytes", cursor, data_size));
}

}  // namespace

size_t safetensors_dtype_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL") return 1;
  return 0;
}

size_t SafetensorsEntry::numel() const {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

SafetensorsFile::SafetensorsFile(const std::string& path)
    : file_(std::make_shared<MappedFile>(path)) {
  const uint64_t size = file_->size();
  if (size < 8)
    format_error(path, "", fmt::format("the file has {} bytes, fewer than the 8-byte header length", size));
  uint64_t n = read_le64(file_->data());
  if (n > kMaxSafetensorsHeader)
    format_error(path, "", fmt::format("the header claims {} bytes; the limit is {} bytes", n,
                                       kMaxSafetensorsHeader));
  if (n > size - 8)
    format_error(path, "", fmt::format("the header claims {} bytes but only {} bytes follow the "
                                       "length field", n, size - 8));
  const char* text = reinterpret_cast<const char*>(file_->data() + 8);
  std::string why;
  std::optional<nlohmann::json> parsed = try_parse_json({text, n}, why);  // rejects invalid UTF-8
  if (!parsed) format_error(path, "", "the header is not valid UTF-8 JSON (" + why + ")");
  nlohmann::json header = std::move(*parsed);
  if (!header.is_object()) format_error(path, "", "the header is not a JSON object");
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) format_error(path, "", "\"__metadata__\" is not an object");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) format_error(path, "", "\"__metadata__\" value of '" + mk + "' is not a string");
        metadata_[mk] = mv.get<std::string>();
      }
      continue;
    }
    index_[key] = entries_.size();
    entries_.push_back(parse_entry(key, value, path));
  }
  data_start_ = file_->data() + 8 + n;
  check_layout(entries_, size - 8 - n, path);
}

const SafetensorsEntry* SafetensorsFile::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

void write_safetensors(const std::string& path, const std::vector<SafetensorsTensorView>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<const SafetensorsTensorView*> order;
  for (const auto& t : tensors) {
    if (safetensors_dtype_size(t.dtype) == 0) throw std::invalid_argument("unknown dtype " + t.dtype);
    order.push_back(&t);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    size_t sa = safetensors_dtype_size(a->dtype), sb = safetensors_dtype_size(b->dtype);
    return sa != sb ? sa > sb : a->name < b->name;
  });
  nlohmann::ordered_json header;
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  std::vector<uint64_t> sizes;
  for (const auto* t : order) {
    uint64_t bytes = safetensors_dtype_size(t->dtype);
    for (int64_t d : t->shape) bytes *= static_cast<uint64_t>(d);
    header[t->name] = {{"dtype", t->dtype}, {"shape", t->shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    sizes.push_back(bytes);
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    uint64_t n = text.size();
    char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    out.write(len, 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (size_t i = 0; i < order.size(); ++i)
      out.write(static_cast<const char*>(order[i]->data), static_cast<std::streamsize>(sizes[i]));
    require_written(out, tmp);  // a full disk: exit 2 with the reason, not "cannot write"
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename " + tmp + " to " + path);
}

}  // namespace runner
