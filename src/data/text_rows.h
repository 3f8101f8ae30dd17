// Reading delimited text files row by row: BOM stripping, UTF-8 checks,
// TSV without quoting (GLUE), RFC 4180 CSV, and the bad-row policy.
#pragma once

#include "data/dataset.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct Row {
  int line = 0;       // 1-based line where the row starts
  int64_t index = 0;  // 0-based data row (header not counted), bad rows included
  std::vector<std::string> fields;
};

// The whole file; throws InputError when it cannot be read. A UTF-8 BOM at
// the start is removed.
std::string read_text_file(const std::string& path);

// Splits into lines at \n; a trailing \r is dropped, and so is the empty
// piece after a final newline.
struct Line {
  int number = 0;
  std::string_view text;
};
std::vector<Line> split_lines(std::string_view text);

// Tab-separated with no quote handling (Python csv QUOTE_NONE, as GLUE reads).
std::vector<std::string> split_tsv(std::string_view line);
// RFC 4180 CSV records ("" escapes a quote; quoted fields may span lines).
// Throws InputError on an unterminated quote.
std::vector<Row> parse_csv(std::string_view text, const std::string& file);

// Raises or records a bad row according to data.on_bad_row.
class BadRowHandler {
 public:
  BadRowHandler(std::string file, bool skip) : file_(std::move(file)), skip_(skip) {}
  // Throws InputError (error policy) or appends to `skipped` (skip policy).
  void report(int line, const std::string& what, std::vector<SkippedRow>& skipped) const;
  // As above, with the fix named for this kind of row (the error policy's hint).
  void report(int line, const std::string& what, const std::string& hint,
              std::vector<SkippedRow>& skipped) const;

 private:
  std::string file_;
  bool skip_;
};

// The reason when `text` is not valid UTF-8 ("invalid UTF-8 at byte 12"), else "".
std::string utf8_problem(std::string_view text);

}  // namespace runner
