// The one way JSON from outside the program is parsed (JSONL inputs,
// config.json, tokenizer.json, checkpoint manifests and state, safetensors
// headers, run records). Nesting is bounded before nlohmann's recursive parser
// sees the text, and its exception text is turned into a message with the
// file, line and column and a hint.
#pragma once

#include <nlohmann/json.hpp>

#include <exception>
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

// An nlohmann exception's text without its "[json.exception.type_error.302] "
// prefix, for a message that names the file and field itself.
std::string json_error_text(const std::exception& e);

// Fields of the records the runner writes itself (summary.json, env.json,
// metrics.jsonl, state.json, a sweep's ledger and summary, a baseline): the
// fallback when the field is missing or of another type, so that a damaged or
// hand-edited record reads as incomplete instead of stopping `ls`, `report`,
// `compare` or `export` with a library message.
std::string record_string(const nlohmann::json& record, const char* key, const std::string& fallback = "");
long long record_integer(const nlohmann::json& record, const char* key, long long fallback = 0);
double record_number(const nlohmann::json& record, const char* key, double fallback = 0.0);
bool record_bool(const nlohmann::json& record, const char* key, bool fallback = false);
nlohmann::json record_object(const nlohmann::json& record, const char* key);  // {} unless an object
nlohmann::json record_array(const nlohmann::json& record, const char* key);   // [] unless an array
// The number under `key`, if there is one (for readers that show "-" when not).
std::optional<double> number_at(const nlohmann::json& record, const std::string& key);

}  // namespace runner
