// The one way JSON from outside the program is parsed (JSONL inputs,
// config.json, tokenizer.json, checkpoint manifests and state, safetensors
// headers, run records). Nesting is bounded before nlohmann's recursive parser
// sees the text, and its exception text is turned into a message with the
// file, line and column and a hint.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace runner {

// Deeper than any real document: Hugging Face configs and tokenizers nest
// fewer than 10 levels, safetensors headers 3.
constexpr int kMaxJsonDepth = 128;

struct JsonSource {
  std::string name;   // the file, or the flag ("--input") for standard input
  int first_line = 1; // the line `text` starts on (a JSONL line's number)
  std::string hint{}; // the fix; a generic one is used when empty
};

// One JSON value; throws InputError naming `source`, the line and column of the
// first problem, what was found and the hint.
nlohmann::json parse_json(std::string_view text, const JsonSource& source);
nlohmann::ordered_json parse_ordered_json(std::string_view text, const JsonSource& source);

// The same checks without throwing, for readers that report or skip a bad
// line themselves: nullopt, with `why` saying what is wrong and at which column.
std::optional<nlohmann::json> try_parse_json(std::string_view text, std::string& why);
std::optional<nlohmann::ordered_json> try_parse_ordered_json(std::string_view text,
                                                             std::string& why);

// read_input_file (util/input_file.h) then parse_json: a JSON document a user named.
nlohmann::json read_json_document(const std::string& path, const std::string& named_by = "",
                                  const std::string& hint = "");

}  // namespace runner
