#include "data/text_rows.h"

#include "util/utf8.h"
#include "util/diagnostic.h"
#include "util/input_file.h"


namespace runner {

std::string read_text_file(const std::string& path) {
  std::string text =
      read_input_file({path, "", kMaxDataFileBytes, "check data.dir and the split names"});
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  return text;
}

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  size_t start = 0;
  int number = 1;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({number++, line});
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> split_tsv(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos) {
      fields.emplace_back(line.substr(start));
      return fields;
    }
    fields.emplace_back(line.substr(start, tab - start));
    start = tab + 1;
  }
}

namespace {

// State of the CSV scanner: the record being built and where it began.
struct CsvState {
  std::vector<Row> rows;
  Row row;
  std::string field;
  int line = 1;
  bool in_quotes = false, field_started = false;

  void end_field() {
    row.fields.push_back(std::move(field));
    field.clear();
    field_started = false;
  }
  void end_record() {
    end_field();
    if (!(row.fields.size() == 1 && row.fields[0].empty())) {
      row.index = static_cast<int64_t>(rows.size());
      rows.push_back(std::move(row));
    }
    row = Row{};
  }
};

}  // namespace

std::vector<Row> parse_csv(std::string_view text, const std::string& file) {
  CsvState st;
  st.row.line = 1;
  int quote_line = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (st.in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        st.field.push_back('"');
        ++i;
      } else if (c == '"') {
        st.in_quotes = false;
      } else {
        if (c == '\n') ++st.line;
        st.field.push_back(c);
      }
      continue;
    }
    if (c == '"' && !st.field_started) {
      st.in_quotes = st.field_started = true;
      quote_line = st.line;
    } else if (c == ',') {
      st.end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      st.end_record();
      st.row.line = ++st.line;
    } else {
      st.field.push_back(c);
      st.field_started = true;
    }
  }
  if (st.in_quotes)
    throw InputError(make_error({file, quote_line, 0, {}}, {},
                                "a quoted CSV field opened here is never closed",
                                "close the quote, or write a literal quote as \"\""));
  if (st.field_started || !st.row.fields.empty()) st.end_record();
  return st.rows;
}

void BadRowHandler::report(int line, const std::string& what,
                          std::vector<SkippedRow>& skipped) const {
  report(line, what,
         "fix the row, or set data.on_bad_row = \"skip\" to leave such rows out (they are then listed in "
         "the run log)",
         skipped);
}

void BadRowHandler::report(int line, const std::string& what, const std::string& hint,
                          std::vector<SkippedRow>& skipped) const {
  if (skip_) {
    skipped.push_back({line, what});
    return;
  }
  throw InputError(make_error({file_, line, 0, {}}, {}, "malformed row: " + what, hint));
}

std::string utf8_problem(std::string_view text) {
  size_t bad = find_invalid_utf8(text);
  if (bad == std::string_view::npos) return {};
  return "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line (expected UTF-8 text)";
}

std::string describe_skipped(const SplitData& split) {
  if (split.skipped.empty()) return {};
  std::string s = "skipped " + std::to_string(split.skipped.size()) + " malformed row" +
                  (split.skipped.size() == 1 ? "" : "s") + " of " + split.file + ": ";
  for (size_t i = 0; i < split.skipped.size(); ++i)
    s += (i ? "; line " : "line ") + std::to_string(split.skipped[i].line) + " (" +
         split.skipped[i].reason + ")";
  return s;
}

}  // namespace runner
