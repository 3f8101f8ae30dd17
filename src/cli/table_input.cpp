#include "cli/table_input.h"

#include "util/diagnostic.h"

#include <filesystem>
#include <set>

namespace runner {
namespace {

[[noreturn]] void refuse(const std::string& flag, const std::string& what, const std::string& hint) {
  throw InputError(make_error(SourceLocation{{}, 0, 0, flag}, "", what, hint));
}

std::string format_of(const ParsedArgs& args, const std::string& input) {
  static const std::set<std::string> formats = {"csv", "tsv", "jsonl"};
  if (args.has("--input-format")) {
    std::string f = args.get("--input-format");
    if (!formats.count(f)) refuse("--input-format", "expected csv, tsv or jsonl, found \"" + f + "\"", "");
    return f;
  }
  std::string ext = std::filesystem::path(input).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  if (ext == "json") ext = "jsonl";
  if (formats.count(ext)) return ext;
  if (input.empty()) return "jsonl";  // standard input: one JSON object a line
  refuse("--input", "cannot tell the format of " + input + " from its extension",
         "name it .csv, .tsv or .jsonl, or pass --input-format csv|tsv|jsonl");
}

// "text_a=question,text_b=sentence,label=label" -> {role: column}.
std::map<std::string, std::string> columns_of(const std::string& text) {
  static const std::set<std::string> roles = {"text_a", "text_b", "label"};
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t eq = item.find('=');
    std::string role = item.substr(0, eq);
    if (eq == std::string::npos || eq + 1 == item.size() || !roles.count(role))
      refuse("--columns", "expected ROLE=COLUMN items separated by commas (roles text_a, text_b, label), found \"" +
                              item + "\"",
             "e.g. --columns text_a=question,text_b=sentence");
    if (out.count(role))
      refuse("--columns", "the role " + role + " is named twice (\"" + out[role] + "\" and \"" + item.substr(eq + 1) + "\")",
             "name each role once, e.g. --columns text_a=question,text_b=sentence");
    out[role] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!out.count("text_a")) refuse("--columns", "no text_a column is named", "add text_a=COLUMN");
  return out;
}

}  // namespace

TableInput table_input_of(const ParsedArgs& args, const std::string& input) {
  TableInput t;
  t.format = format_of(args, input);
  if (args.has("--columns")) t.columns = columns_of(args.get("--columns"));
  if (args.has("--no-header") && t.format == "jsonl")
    refuse("--no-header", "a JSONL input has no header line: the keys of each line's object name its columns",
           "leave --no-header out, or pass a CSV or TSV --input");
  if (args.has("--no-header")) t.header = false;
  return t;
}

}  // namespace runner
