// Turning rows of fields into examples: which column is which, how labels are
// read, and the checks that make a malformed row an error (or a skipped row).
#pragma once

#include "data/dataset.h"
#include "data/text_rows.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct ColumnLayout {
  int text_a = -1;
  int text_b = -1;           // -1: single sentences
  int label = -1;            // -1: no labels in this split
  size_t field_count = 0;    // 0: any row with enough fields; else exactly this many
  const char* separator = "tabs";  // what separates the fields, as a row's error names it
};

// Label text -> id. An empty map means "an integer in [0, num_labels)".
// Regression reads a number; multi-label reads a list of labels, each a name
// of the map or an id: a JSON list (JSONL) or texts joined by `delimiter`.
// The largest regression target a run trains on: its square, the MSE loss
// against a prediction of 0, must be a finite float32 (the loss is float32 in
// every precision, autocast included), so |y| <= sqrt(FLT_MAX), about 1.8e19.
constexpr double kMaxRegressionTarget = 1.8446742974197924e19;

// A regression label as a run reads it (and validate checks it): a decimal
// number, spaces around it and a leading "+" allowed, as Python's float()
// takes them; hexadecimal, "inf" and "nan" are not numbers here.
std::optional<double> regression_number(std::string_view text);

struct LabelReader {
  std::map<std::string, int64_t> by_name;
  int num_labels = 2;
  ProblemType problem = ProblemType::SingleLabel;
  std::string delimiter = "|";
  // Set: every label text is taken (as id 0) and recorded here, to be judged
  // as a whole (validate's check of a split's labels); a multi-label list's
  // texts one by one.
  std::set<std::string>* texts_seen = nullptr;
  // The id, or nullopt with `why` set.
  std::optional<int64_t> read(const std::string& text, std::string& why) const;
  // Regression and multi-label: the example's targets, or nullopt with `why`
  // and the fix in `hint`.
  std::optional<std::vector<float>> read_targets(const std::string& text, std::string& why,
                                                 std::string& hint) const;

 private:
  std::optional<std::vector<float>> read_number(const std::string& text, std::string& why,
                                                std::string& hint) const;
  std::optional<std::vector<float>> read_list(const std::string& text, std::string& why,
                                              std::string& hint) const;
  std::vector<std::string> list_items(const std::string& text, std::string& why) const;
};

// Appends one example per good row to `out.examples`; bad rows go through `policy`.
void rows_to_examples(const std::vector<Row>& rows, const ColumnLayout& layout,
                      const LabelReader& labels, const BadRowHandler& policy, SplitData& out);

// TSV rows of a file's lines (no quoting), starting after `skip_header` lines.
// Lines with invalid UTF-8 are reported through `policy` and left out.
std::vector<Row> tsv_rows(const std::vector<Line>& lines, bool skip_header,
                          const BadRowHandler& policy, std::vector<SkippedRow>& skipped);

}  // namespace runner
