// How `runner predict` and `runner evaluate` read an --input file: its format
// (--input-format, else the file's extension), the columns that hold each role
// (--columns, the roles and names of data.columns) and whether a header line
// names them (--no-header, as data.header = false).
#pragma once

#include "cli/args.h"

#include <map>
#include <optional>
#include <string>

namespace runner {

struct TableInput {
  std::string format;                          // "csv", "tsv" or "jsonl"
  std::map<std::string, std::string> columns;  // role -> column; empty when --columns is absent
  std::optional<bool> header;                  // set by --no-header only
};

// Throws InputError naming the flag: an unknown format, a file whose extension
// says none (without --input-format), or a malformed --columns.
TableInput table_input_of(const ParsedArgs& args, const std::string& input);

}  // namespace runner
