// Generic datasets from TSV, CSV or JSONL files with a column mapping in the
// recipe: data.columns names the text_a / text_b / label columns (header names,
// JSON keys, or 0-based indices for files without a header).
#include "data/file_dataset.h"

#include "data/split_files.h"
#include "data/table_rows.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/numbers.h"

#include <algorithm>

namespace runner {

namespace {

struct FileDatasetConfig {
  std::string format;  // "tsv", "csv", "jsonl"
  std::string dir;
  std::map<std::string, std::string> files;    // split -> file name
  std::map<std::string, std::string> columns;  // role -> column
  bool header = true;
  bool skip_bad_rows = false;
  LabelReader labels;
  DatasetInfo info;
  size_t scan_bytes = 0;  // > 0: only the lines within the file's first scan_bytes are read
};

InputError config_error(const std::string& key, std::string what, std::string hint = {}) {
  return InputError(make_error({}, "data." + key, std::move(what), std::move(hint)));
}

// A column number far past any real file's; it keeps the index an int.
constexpr long long kMaxColumnIndex = 1000000;

// The index of a mapped column in `header` (or a digit string when there is none).
int column_index(const FileDatasetConfig& c, const std::vector<std::string>& header,
                 const std::string& role, const std::string& file) {
  auto it = c.columns.find(role);
  if (it == c.columns.end()) return -1;
  const std::string& name = it->second;
  if (!c.header) {
    std::string why;
    std::optional<long long> index = parse_integer(name, why, 0, kMaxColumnIndex);
    if (!index)
      throw InputError(make_error({file, 0, 0, {}}, "data.columns." + role,
                                  "column \"" + name + "\" is not a 0-based column index: " + why,
                                  "without a header line (data.header = false) columns are numbers "
                                  "counted from 0"));
    return static_cast<int>(*index);
  }
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  if (header.empty() && c.format == "jsonl")
    throw InputError(make_error({file, 0, 0, {}}, "data.columns." + role, "the file is empty: it has no rows",
                                "write one JSON object per line, or name another file in data.files"));
  if (header.empty())
    throw InputError(make_error({file, 0, 0, {}}, "data.columns." + role,
                                "the file is empty: it has no header line naming its columns, and no rows",
                                "write the header line (e.g. text_a" + std::string(c.format == "csv" ? "," : "\\t") +
                                    "label) and the rows, or name another file in data.files"));
  std::string have;
  for (const auto& h : header) have += (have.empty() ? "" : ", ") + ("\"" + h + "\"");
  throw InputError(make_error({file, 1, 0, {}}, "data.columns." + role,
                              "the header has no column \"" + name + "\"; it has " + have,
                              "set data.columns." + role + " to one of the header's names"));
}

class FileDataset : public Dataset {
 public:
  explicit FileDataset(FileDatasetConfig c) : c_(std::move(c)) {}
  const DatasetInfo& info() const override { return c_.info; }

  std::string split_file(const std::string& split) const override {
    return split_file_path(c_.dir, c_.files, split, c_.format);
  }

  SplitData load_split(const std::string& split) const override {
    SplitData out;
    out.split = split;
    out.file = split_file(split);
    BadRowHandler policy(out.file, c_.skip_bad_rows);
    std::string text = read_text_file(out.file);
    if (c_.scan_bytes > 0 && text.size() > c_.scan_bytes)
      text.resize(text.rfind('\n', c_.scan_bytes - 1) + 1);  // whole lines only
    std::vector<Row> rows;
    std::vector<std::string> header;
    if (c_.format == "jsonl") {
      rows = jsonl_rows(text, policy, out.skipped, header);
    } else {
      rows = c_.format == "csv" ? csv_rows(text, policy, out) : tsv_rows(split_lines(text), false, policy, out.skipped);
      if (c_.header && !rows.empty()) {
        header = rows.front().fields;
        rows.erase(rows.begin());
        for (Row& r : rows) --r.index;
      }
    }
    ColumnLayout layout;
    layout.text_a = column_index(c_, header, "text_a", out.file);
    layout.text_b = column_index(c_, header, "text_b", out.file);
    layout.label = column_index(c_, header, "label", out.file);
    if (layout.text_a < 0) throw config_error("columns.text_a", "no text_a column is mapped");
    if (c_.format != "jsonl" && c_.header) layout.field_count = header.size();
    if (c_.format == "csv") layout.separator = "commas";
    out.target_width = target_width(c_.info);
    rows_to_examples(rows, layout, c_.labels, policy, out);
    return out;
  }

 private:
  std::vector<Row> csv_rows(const std::string& text, const BadRowHandler& policy, SplitData& out) const {
    std::vector<Row> rows;
    for (Row& r : parse_csv(text, out.file)) {
      std::string why;
      for (const auto& f : r.fields)
        if (why.empty()) why = utf8_problem(f);
      if (!why.empty()) policy.report(r.line, why, out.skipped);
      else rows.push_back(std::move(r));
    }
    return rows;
  }

  // JSONL: the header is the list of mapped keys, and each object becomes the
  // fields in that order (a missing or null key is an empty field / no text_b).
  std::vector<Row> jsonl_rows(const std::string& text, const BadRowHandler& policy,
                              std::vector<SkippedRow>& skipped, std::vector<std::string>& header) const {
    for (const auto& [role, key] : c_.columns) header.push_back(key);
    std::vector<Row> rows;
    int64_t index = 0;
    for (const Line& line : split_lines(text)) {
      if (line.text.find_first_not_of(" \t") == std::string_view::npos) continue;
      Row row{line.number, index++, {}};
      std::string why = utf8_problem(line.text);
      if (why.empty()) why = json_fields(line.text, header, row.fields);
      if (!why.empty()) policy.report(line.number, why, skipped);
      else rows.push_back(std::move(row));
    }
    return rows;
  }

  static std::string json_fields(std::string_view text, const std::vector<std::string>& keys,
                                 std::vector<std::string>& fields) {
    std::string why;
    std::optional<nlohmann::json> parsed = try_parse_json(text, why);
    if (!parsed) return why;
    const nlohmann::json& j = *parsed;
    if (!j.is_object()) return "not a JSON object";
    for (const auto& key : keys) {
      if (!j.contains(key) || j[key].is_null()) return "missing key \"" + key + "\"";
      const auto& v = j[key];
      fields.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    return {};
  }

  FileDatasetConfig c_;
};

}  // namespace

namespace {

// Ids run from 0 to num_labels - 1, and with a map every class has a name: a
// class no label text maps to could never be trained.
void check_labels_map(const std::map<std::string, int64_t>& by_name, int num_labels) {
  if (by_name.empty()) return;
  int64_t top = -1;
  for (const auto& [name, id] : by_name) {
    if (id < 0)
      throw config_error("labels." + name, "label id " + std::to_string(id) + " is negative",
                         "label ids run from 0 to data.num_labels - 1");
    top = std::max(top, id);
  }
  const std::string fix = "remove data.num_labels (it is then taken from the labels map: " +
                          std::to_string(top + 1) + ") or set num_labels = " + std::to_string(top + 1);
  for (const auto& [name, id] : by_name)
    if (id >= num_labels)
      throw config_error("num_labels",
                         "data.labels maps \"" + name + "\" to id " + std::to_string(id) + ", but num_labels = " +
                             std::to_string(num_labels) + " (ids 0 to " + std::to_string(num_labels - 1) + ")",
                         fix);
  if (top + 1 < num_labels)
    throw config_error("num_labels",
                       "num_labels = " + std::to_string(num_labels) + ", but data.labels names ids up to " +
                           std::to_string(top) + ": class " + std::to_string(num_labels - 1) +
                           " has no label text and could never be trained",
                       fix);
}

// data.problem_type, or Transformers' rule: one label is a regression.
ProblemType file_problem_type(const nlohmann::json& o, int num_labels) {
  std::string name = o.value("problem_type", std::string("auto"));
  std::optional<ProblemType> p = problem_type_from_name(name);
  if (!p) p = num_labels == 1 ? ProblemType::Regression : ProblemType::SingleLabel;
  if (*p == ProblemType::Regression && num_labels != 1)
    throw config_error("num_labels",
                       "problem_type = \"regression\" predicts one number, but num_labels = " +
                           std::to_string(num_labels),
                       "set num_labels = 1 (or leave it out), or choose a classification problem_type");
  return *p;
}

FileDatasetConfig file_dataset_config(const std::string& format, const nlohmann::json& o) {
  FileDatasetConfig c;
  c.format = format;
  c.dir = o.at("dir").get<std::string>();
  c.files = o.value("files", std::map<std::string, std::string>{});
  c.columns = o.value("columns", std::map<std::string, std::string>{});
  if (c.columns.empty()) c.columns = {{"text_a", "text_a"}, {"label", "label"}};
  c.header = o.value("header", true);
  c.skip_bad_rows = o.value("on_bad_row", "error") == "skip";
  c.labels.by_name = o.value("labels", std::map<std::string, int64_t>{});
  c.info.num_labels = static_cast<int>(o.value("num_labels", 2));
  c.labels.num_labels = c.info.num_labels;
  c.info.problem_type = file_problem_type(o, c.info.num_labels);
  c.labels.problem = c.info.problem_type;
  c.labels.delimiter = o.value("label_delimiter", std::string("|"));
  if (c.labels.delimiter.empty()) throw config_error("label_delimiter", "is empty", "set it to \"|\" or \",\"");
  c.info.threshold = o.value("threshold", 0.5);
  check_labels_map(c.labels.by_name, c.info.num_labels);
  c.info.label_names.resize(static_cast<size_t>(c.info.num_labels));
  for (int i = 0; i < c.info.num_labels; ++i) c.info.label_names[static_cast<size_t>(i)] = std::to_string(i);
  for (const auto& [name, id] : c.labels.by_name) c.info.label_names[static_cast<size_t>(id)] = name;
  c.info.metrics = o.value("metrics", std::vector<std::string>{"accuracy"});
  c.info.main_metric = o.value("main_metric", std::string());
  if (c.info.main_metric.empty() && !c.info.metrics.empty()) c.info.main_metric = c.info.metrics.front();
  c.info.is_pair = c.columns.count("text_b") > 0;
  return c;
}

}  // namespace

std::shared_ptr<const Dataset> make_file_dataset(const std::string& format, const nlohmann::json& o) {
  return std::make_shared<FileDataset>(file_dataset_config(format, o));
}

std::set<std::string> split_label_texts(const std::string& format, const nlohmann::json& options,
                                        const std::string& split) {
  std::set<std::string> texts;
  FileDatasetConfig c = file_dataset_config(format, options);
  c.labels.texts_seen = &texts;
  c.skip_bad_rows = true;
  c.scan_bytes = kLabelScanBytes;
  FileDataset(std::move(c)).load_split(split);
  return texts;
}

}  // namespace runner
