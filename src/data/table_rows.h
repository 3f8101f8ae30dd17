// Turning rows of fields into examples: which column is which, how labels are
// read, and the checks that make a malformed row an error (or a skipped row).
#pragma once

#include "data/dataset.h"
#include "data/text_rows.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace runner {

struct ColumnLayout {
  int text_a = -1;
  int text_b = -1;           // -1: single sentences
  int label = -1;            // -1: no labels in this split
  size_t field_count = 0;    // 0: any row with enough fields; else exactly this many
};

// Label text -> id. An empty map means "an integer in [0, num_labels)".
struct LabelReader {
  std::map<std::string, int64_t> by_name;
  int num_labels = 2;
  // Set: every label text is taken (as id 0) and recorded here, to be judged
  // as a whole (validate's check of a split's labels).
  std::set<std::string>* texts_seen = nullptr;
  // The id, or nullopt with `why` set.
  std::optional<int64_t> read(const std::string& text, std::string& why) const;
};

// Appends one example per good row to `out.examples`; bad rows go through `policy`.
void rows_to_examples(const std::vector<Row>& rows, const ColumnLayout& layout,
                      const LabelReader& labels, const BadRowHandler& policy, SplitData& out);

// TSV rows of a file's lines (no quoting), starting after `skip_header` lines.
// Lines with invalid UTF-8 are reported through `policy` and left out.
std::vector<Row> tsv_rows(const std::vector<Line>& lines, bool skip_header,
                          const BadRowHandler& policy, std::vector<SkippedRow>& skipped);

}  // namespace runner
