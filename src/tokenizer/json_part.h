// One place in a tokenizer.json (the file and a JSON path such as
// "pre_tokenizer.pretokenizers[1]") with typed readers whose errors name both.
// Every part of the pipeline is built from one of these.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace runner::hf {

class JsonPart {
 public:
  JsonPart(const nlohmann::json& json, std::string file, std::string path)
      : json_(&json), file_(std::move(file)), path_(std::move(path)) {}

  const nlohmann::json& json() const { return *json_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  bool has(const char* key) const;  // present and not null

  JsonPart at(const char* key) const;  // the member (null when absent)
  JsonPart at(size_t index) const;     // an element of an array
  size_t array_size(const char* what) const;  // this is an array, else an error

  // The part's "type"; an error when it is missing or not a string.
  std::string type() const;
  std::string str(const char* key, std::optional<std::string> fallback = std::nullopt) const;
  bool flag(const char* key, std::optional<bool> fallback = std::nullopt) const;
  long long integer(const char* key, std::optional<long long> fallback = std::nullopt) const;
  double number(const char* key, std::optional<double> fallback = std::nullopt) const;

  // InputError "FILE: PATH.key: what" with `hint`.
  [[noreturn]] void fail(const std::string& key, const std::string& what,
                         const std::string& hint = "re-save the tokenizer with save_pretrained") const;
  // The refusal of a part this runner does not implement: names it, where it
  // is and what is supported, so nothing is ever tokenized differently.
  [[noreturn]] void unsupported(const std::string& what, const std::vector<std::string>& supported) const;

 private:
  std::string child_path(const std::string& key) const;
  const nlohmann::json& member(const char* key, const char* want) const;

  const nlohmann::json* json_;
  std::string file_;
  std::string path_;
};

}  // namespace runner::hf
