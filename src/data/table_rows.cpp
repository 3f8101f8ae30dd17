#include "data/table_rows.h"

#include <algorithm>

namespace runner {

static std::string row_problem(const Row& row, const ColumnLayout& layout) {
  int needed = std::max({layout.text_a, layout.text_b, layout.label}) + 1;
  if (layout.field_count && row.fields.size() != layout.field_count)
    return std::to_string(row.fields.size()) + " fields, expected " +
           std::to_string(layout.field_count) + " separated by " + layout.separator;
  if (row.fields.size() < static_cast<size_t>(needed))
    return std::to_string(row.fields.size()) + " fields, expected at least " +
           std::to_string(needed);
  return {};
}

void rows_to_examples(const std::vector<Row>& rows, const ColumnLayout& layout,
                      const LabelReader& labels, const BadRowHandler& policy, SplitData& out) {
  out.has_labels = layout.label >= 0;
  for (const Row& row : rows) {
    if (std::string why = row_problem(row, layout); !why.empty()) {
      policy.report(row.line, why, out.skipped);
      continue;
    }
    Example ex;
    ex.id = row.index;
    if (layout.label >= 0 && labels.problem != ProblemType::SingleLabel) {
      std::string why, hint;
      auto targets = labels.read_targets(row.fields[static_cast<size_t>(layout.label)], why, hint);
      if (!targets) {
        policy.report(row.line, why, hint, out.skipped);
        continue;
      }
      ex.label = 0;
      ex.targets = std::move(*targets);
    } else if (layout.label >= 0) {
      std::string why;
      auto label = labels.read(row.fields[static_cast<size_t>(layout.label)], why);
      if (!label) {
        policy.report(row.line, why, out.skipped);
        continue;
      }
      ex.label = *label;
    }
    ex.text_a = row.fields[static_cast<size_t>(layout.text_a)];
    if (layout.text_b >= 0) ex.text_b = row.fields[static_cast<size_t>(layout.text_b)];
    out.examples.push_back(std::move(ex));
  }
}

std::vector<Row> tsv_rows(const std::vector<Line>& lines, bool skip_header,
                          const BadRowHandler& policy, std::vector<SkippedRow>& skipped) {
  std::vector<Row> rows;
  rows.reserve(lines.size());
  for (size_t i = skip_header ? 1 : 0; i < lines.size(); ++i) {
    if (std::string why = utf8_problem(lines[i].text); !why.empty()) {
      policy.report(lines[i].number, why, skipped);
      continue;
    }
    int64_t index = static_cast<int64_t>(i) - (skip_header ? 1 : 0);
    rows.push_back({lines[i].number, index, split_tsv(lines[i].text)});
  }
  return rows;
}

}  // namespace runner
