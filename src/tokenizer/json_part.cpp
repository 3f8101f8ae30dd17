#include "tokenizer/json_part.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

namespace runner::hf {

namespace {
const nlohmann::json kNull;

std::string shown(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}
}  // namespace

std::string JsonPart::child_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool JsonPart::has(const char* key) const {
  return json_->is_object() && json_->contains(key) && !(*json_)[key].is_null();
}

JsonPart JsonPart::at(const char* key) const {
  if (!has(key)) return JsonPart(kNull, file_, child_path(key));
  return JsonPart((*json_)[key], file_, child_path(key));
}

JsonPart JsonPart::at(size_t index) const {
  return JsonPart(json_->at(index), file_, fmt::format("{}[{}]", path_, index));
}

size_t JsonPart::array_size(const char* what) const {
  if (!json_->is_array()) fail("", fmt::format("expected {}, found {}", what, shown(*json_)));
  return json_->size();
}

const nlohmann::json& JsonPart::member(const char* key, const char* want) const {
  if (!json_->is_object()) fail("", fmt::format("expected an object with {} \"{}\"", want, key));
  return (*json_)[key];
}

std::string JsonPart::type() const {
  if (!json_->is_object() || !json_->contains("type") || !(*json_)["type"].is_string())
    fail("type", "missing, or not a string: every part of a tokenizer.json names its type");
  return (*json_)["type"].get<std::string>();
}

std::string JsonPart::str(const char* key, std::optional<std::string> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const nlohmann::json& v = member(key, "a string");
  if (!v.is_string()) fail(key, "expected a string, found " + shown(v));
  return v.get<std::string>();
}

bool JsonPart::flag(const char* key, std::optional<bool> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const nlohmann::json& v = member(key, "true or false");
  if (!v.is_boolean()) fail(key, "expected true or false, found " + shown(v));
  return v.get<bool>();
}

long long JsonPart::integer(const char* key, std::optional<long long> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const nlohmann::json& v = member(key, "an integer");
  if (!v.is_number_integer()) fail(key, "expected an integer, found " + shown(v));
  return v.get<long long>();
}

double JsonPart::number(const char* key, std::optional<double> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const nlohmann::json& v = member(key, "a number");
  if (!v.is_number()) fail(key, "expected a number, found " + shown(v));
  return v.get<double>();
}

void JsonPart::fail(const std::string& key, const std::string& what, const std::string& hint) const {
  std::string where = key.empty() ? path_ : child_path(key);
  throw InputError(make_error({file_, 0, 0, {}}, {},
                              (where.empty() ? std::string() : where + ": ") + what, hint));
}

void JsonPart::unsupported(const std::string& what, const std::vector<std::string>& supported) const {
  fail("", fmt::format("{} is not supported by the runner's tokenizer.json reader (supported: {})", what,
                       fmt::join(supported, ", ")),
       "use a tokenizer whose tokenizer.json uses only the supported parts; the runner refuses "
       "rather than tokenize differently from Hugging Face tokenizers");
}

}  // namespace runner::hf
