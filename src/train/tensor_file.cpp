#include "train/tensor_file.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <cstring>

namespace runner {
namespace {

const std::vector<std::pair<torch::ScalarType, std::string>>& dtype_names() {
  static const std::vector<std::pair<torch::ScalarType, std::string>> names = {
      {torch::kFloat32, "F32"}, {torch::kFloat64, "F64"}, {torch::kFloat16, "F16"},
      {torch::kBFloat16, "BF16"}, {torch::kInt64, "I64"}, {torch::kInt32, "I32"},
      {torch::kUInt8, "U8"},      {torch::kBool, "BOOL"}};
  return names;
}

std::string dtype_name(torch::ScalarType t) {
  for (const auto& [type, name] : dtype_names())
    if (type == t) return name;
  throw std::logic_error(fmt::format("tensor_file: unsupported dtype {}", c10::toString(t)));
}

[[noreturn]] void malformed(const std::string& origin, const std::string& what) {
  throw InputError(make_error(SourceLocation{origin, 0, 0, ""}, "", "malformed tensor file: " + what,
                              "the checkpoint is damaged; resume from an earlier one"));
}

torch::ScalarType dtype_of(const std::string& name, const std::string& origin) {
  for (const auto& [type, n] : dtype_names())
    if (n == name) return type;
  malformed(origin, "unknown dtype " + name);
}

void read_metadata(const nlohmann::json& e, const std::string& origin, TensorMetadata& out) {
  if (!e.is_object()) malformed(origin, "\"__metadata__\" is not an object");
  for (const auto& [key, value] : e.items()) {
    if (!value.is_string()) malformed(origin, fmt::format("\"__metadata__\" value of '{}' is not a string", key));
    out[key] = value.get<std::string>();
  }
}

}  // namespace

EncodedTensors encode_tensor_views(const TensorMap& tensors, const TensorMetadata& metadata) {
  auto kept = std::make_shared<std::vector<torch::Tensor>>();
  EncodedTensors out;
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  size_t end = 0;
  for (const auto& [name, t] : tensors) {
    torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
    const size_t begin = end;
    end += c.nbytes();
    header[name] = {{"dtype", dtype_name(c.scalar_type())},
                    {"shape", c.sizes().vec()},
                    {"data_offsets", {begin, end}}};
    out.data.emplace_back(static_cast<const char*>(c.data_ptr()), c.nbytes());
    kept->push_back(std::move(c));
  }
  std::string h = header.dump();
  h.append((8 - h.size() % 8) % 8, ' ');
  uint64_t n = h.size();
  out.header.assign(8, '\0');
  std::memcpy(out.header.data(), &n, 8);  // little-endian hosts only, as LibTorch's CPU builds
  out.header += h;
  out.owner = std::move(kept);
  return out;
}

std::string encode_tensors(const TensorMap& tensors) {
  EncodedTensors e = encode_tensor_views(tensors);
  std::string out = std::move(e.header);
  for (std::string_view piece : e.data) out.append(piece);
  return out;
}

TensorMap decode_tensors(const std::string& bytes, const std::string& origin, TensorMetadata* metadata) {
  if (bytes.size() < 8) malformed(origin, "shorter than its 8-byte header length");
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  if (n > bytes.size() - 8) malformed(origin, fmt::format("header length {} past the end", n));
  std::string why;
  std::optional<nlohmann::json> parsed = try_parse_json(std::string_view(bytes).substr(8, n), why);
  if (!parsed) malformed(origin, "header is " + why);
  nlohmann::json header = std::move(*parsed);
  size_t base = 8 + n;
  TensorMap out;
  for (const auto& [name, e] : header.items()) {
    if (name == "__metadata__") {
      if (metadata) read_metadata(e, origin, *metadata);
      continue;
    }
    auto type = dtype_of(e.at("dtype").get<std::string>(), origin);
    auto shape = e.at("shape").get<std::vector<int64_t>>();
    auto offsets = e.at("data_offsets").get<std::vector<size_t>>();
    torch::Tensor t = torch::empty(shape, torch::TensorOptions().dtype(type));
    if (offsets.size() != 2 || offsets[1] < offsets[0] || base + offsets[1] > bytes.size() ||
        offsets[1] - offsets[0] != t.nbytes())
      malformed(origin, fmt::format("tensor '{}' has bad data offsets", name));
    if (t.nbytes() > 0) std::memcpy(t.data_ptr(), bytes.data() + base + offsets[0], t.nbytes());  // empty: data_ptr() may be null
    out[name] = t;
  }
  return out;
}

}  // namespace runner
