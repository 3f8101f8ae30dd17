#include "util/json_input.h"

#include "util/diagnostic.h"
#include "util/input_file.h"

#include <fmt/format.h>

#include <tuple>

namespace runner {
namespace {

struct Problem {
  size_t byte = 0;  // 0-based offset of the problem; npos when unknown
  std::string what;
};

// The offset where nesting first exceeds kMaxJsonDepth, or npos. Brackets in
// strings do not count; the scan does not judge anything else.
size_t too_deep_at(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

// nlohmann's message without its "[json.exception.parse_error.101] parse
// error at line 1, column 4: " prefix: the location is ours to print.
std::string library_reason(const std::string& what) {
  std::string s = what;
  if (s.rfind("[json.exception.", 0) == 0) {
    size_t close = s.find("] ");
    if (close != std::string::npos) s = s.substr(close + 2);
  }
  size_t colon = s.find(": ");
  if (s.rfind("parse error", 0) == 0 && colon != std::string::npos) s = s.substr(colon + 2);
  return s;
}

template <class Json>
std::optional<Json> parse_checked(std::string_view text, Problem& p) {
  size_t deep = too_deep_at(text);
  if (deep != std::string_view::npos) {
    p = {deep, fmt::format("nested deeper than {} levels of [ and {{", kMaxJsonDepth)};
    return std::nullopt;
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    p = {e.byte > 0 ? e.byte - 1 : 0, "not valid JSON: " + library_reason(e.what())};
  } catch (const nlohmann::json::exception& e) {  // out_of_range.406: a number past a double
    p = {std::string_view::npos, "not valid JSON: " + library_reason(e.what())};
  }
  return std::nullopt;
}

// 1-based line and column of byte `at`, counting from `first_line`.
std::pair<int, int> line_col(std::string_view text, size_t at, int first_line) {
  int line = first_line, col = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return {line, col};
}

template <class Json>
Json parse_or_throw(std::string_view text, const JsonSource& source) {
  Problem p;
  if (auto j = parse_checked<Json>(text, p)) return std::move(*j);
  SourceLocation where{source.name, source.first_line, 0, {}};
  if (p.byte != std::string_view::npos)
    std::tie(where.line, where.column) = line_col(text, p.byte, source.first_line);
  std::string hint = source.hint.empty() ? "the file is damaged or was cut short; restore it or "
                                           "write it again"
                                         : source.hint;
  throw InputError(make_error(where, "", p.what, hint));
}

template <class Json>
std::optional<Json> parse_or_why(std::string_view text, std::string& why) {
  Problem p;
  if (auto j = parse_checked<Json>(text, p)) return j;
  why = p.byte == std::string_view::npos
            ? p.what
            : fmt::format("{} (at column {})", p.what, line_col(text, p.byte, 1).second);
  return std::nullopt;
}

}  // namespace

std::string json_error_text(const std::exception& e) { return library_reason(e.what()); }

nlohmann::json parse_json(std::string_view text, const JsonSource& source) {
  return parse_or_throw<nlohmann::json>(text, source);
}

nlohmann::ordered_json parse_ordered_json(std::string_view text, const JsonSource& source) {
  return parse_or_throw<nlohmann::ordered_json>(text, source);
}

std::optional<nlohmann::json> try_parse_json(std::string_view text, std::string& why) {
  return parse_or_why<nlohmann::json>(text, why);
}

std::optional<nlohmann::ordered_json> try_parse_ordered_json(std::string_view text,
                                                             std::string& why) {
  return parse_or_why<nlohmann::ordered_json>(text, why);
}

nlohmann::json read_json_document(const std::string& path, const std::string& named_by,
                                  const std::string& hint) {
  std::string text = read_input_file({path, named_by, kMaxDocumentBytes, hint});
  return parse_json(text, {path, 1, hint});
}

namespace {

const nlohmann::json* record_field(const nlohmann::json& record, const char* key) {
  if (!record.is_object()) return nullptr;
  auto it = record.find(key);
  return it == record.end() ? nullptr : &*it;
}

}  // namespace

std::string record_string(const nlohmann::json& record, const char* key, const std::string& fallback) {
  const nlohmann::json* v = record_field(record, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}

long long record_integer(const nlohmann::json& record, const char* key, long long fallback) {
  const nlohmann::json* v = record_field(record, key);
  if (!v || !v->is_number_integer()) return fallback;
  // An unsigned value past int64 would wrap: it is as damaged as a string.
  if (v->is_number_unsigned() && v->get<unsigned long long>() > 9223372036854775807ULL) return fallback;
  return v->get<long long>();
}

double record_number(const nlohmann::json& record, const char* key, double fallback) {
  const nlohmann::json* v = record_field(record, key);
  return v && v->is_number() ? v->get<double>() : fallback;
}

bool record_bool(const nlohmann::json& record, const char* key, bool fallback) {
  const nlohmann::json* v = record_field(record, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

nlohmann::json record_object(const nlohmann::json& record, const char* key) {
  const nlohmann::json* v = record_field(record, key);
  return v && v->is_object() ? *v : nlohmann::json::object();
}

std::optional<double> number_at(const nlohmann::json& record, const std::string& key) {
  const nlohmann::json* v = record_field(record, key.c_str());
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

nlohmann::json record_array(const nlohmann::json& record, const char* key) {
  const nlohmann::json* v = record_field(record, key);
  return v && v->is_array() ? *v : nlohmann::json::array();
}

}  // namespace runner
