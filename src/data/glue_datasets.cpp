// The GLUE tasks as distributed: tab-separated, no quoting, a BOM on some
// files, and label-less test splits. Columns are found by their header names,
// as Hugging Face `datasets` reads them (datasets/glue/glue.py: csv.DictReader
// with QUOTE_NONE, its text_features and label_column per task), so that
// MNLI's dev files, which carry four more annotator labels than train.tsv, read
// the same way. CoLA's train.tsv and dev.tsv are the only files without a
// header: source, label, original mark, sentence (read by position there).
#include "data/glue_tasks.h"

#include "data/table_rows.h"
#include "hub/glue_tasks.h"
#include "util/diagnostic.h"

#include <algorithm>
#include <filesystem>

namespace runner {

namespace {

// A header name's column, or -1.
int column_of(const std::vector<std::string>& header, const std::string& name) {
  auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

class GlueDataset : public Dataset {
 public:
  GlueDataset(GlueTask task, std::string dir, bool skip_bad_rows)
      : task_(std::move(task)), files_(*hub::find_glue_task(task_.name)), dir_(std::move(dir)),
        skip_(skip_bad_rows) {}

  const DatasetInfo& info() const override { return task_.info; }

  std::string split_file(const std::string& split) const override {
    std::string file = split_alias(split) + ".tsv";
    const auto& known = files_.split_files;
    if (std::find(known.begin(), known.end(), file) == known.end())
      throw InputError(make_error({}, "data.train_split",
                                  "GLUE " + task_.name + " has no split '" + split + "'",
                                  "use one of " + split_names()));
    return (std::filesystem::path(dir_) / file).string();
  }

  SplitData load_split(const std::string& split) const override {
    SplitData out;
    out.split = split;
    out.file = split_file(split);
    BadRowHandler policy(out.file, skip_);
    std::string text = read_text_file(out.file);
    std::vector<Line> lines = split_lines(text);
    const bool header = !(task_.headerless_labelled && !is_test(split));
    ColumnLayout layout = header ? header_layout(lines, out.file, is_test(split)) : task_.headerless;
    std::vector<Row> rows = tsv_rows(lines, header, policy, out.skipped);
    LabelReader labels;
    labels.num_labels = task_.info.num_labels;
    labels.problem = task_.info.problem_type;
    labels.by_name = task_.label_ids;
    rows_to_examples(rows, layout, labels, policy, out);
    out.target_width = target_width(task_.info);
    return out;
  }

  std::vector<CompanionSplit> companion_splits(const std::string& eval_split) const override {
    if (task_.companion.split.empty() || split_alias(eval_split) != split_alias(task_.companion_of)) return {};
    return {task_.companion};
  }

 private:
  // MNLI's "dev" and "test" are its matched sets, the ones GLUE ranks by.
  std::string split_alias(const std::string& split) const {
    if (task_.name == "mnli" && (split == "dev" || split == "test")) return split + "_matched";
    return split;
  }

  static bool is_test(const std::string& split) { return split.rfind("test", 0) == 0; }

  std::string split_names() const {
    std::string out;
    for (const auto& f : files_.split_files)
      out += (out.empty() ? "\"" : ", \"") + f.substr(0, f.size() - 4) + "\"";
    return out;
  }

  // The columns of the task's text and label names in the file's header; a
  // test file has no label column, a train or dev file must.
  ColumnLayout header_layout(const std::vector<Line>& lines, const std::string& file, bool test) const {
    std::vector<std::string> header = lines.empty() ? std::vector<std::string>{} : split_tsv(lines.front().text);
    ColumnLayout layout;
    layout.text_a = column_of(header, task_.text_a);
    layout.text_b = task_.text_b.empty() ? -1 : column_of(header, task_.text_b);
    layout.label = column_of(header, task_.label);
    layout.field_count = header.size();
    std::string missing = layout.text_a < 0                          ? task_.text_a
                          : !task_.text_b.empty() && layout.text_b < 0 ? task_.text_b
                          : !test && layout.label < 0                  ? task_.label
                                                                       : "";
    if (!missing.empty())
      throw InputError(make_error(SourceLocation{file, 1, 0, {}}, "data.dir",
                                  "GLUE " + task_.name + ": the header has no column \"" + missing + "\"",
                                  "this file is not GLUE's " + task_.name +
                                      " split: fetch it again (runner fetch glue/" + task_.name + ")"));
    return layout;
  }

  GlueTask task_;
  const hub::GlueTaskFiles& files_;
  std::string dir_;
  bool skip_;
};

}  // namespace

std::shared_ptr<const Dataset> make_glue_dataset(const std::string& task, const nlohmann::json& options) {
  bool skip = options.value("on_bad_row", "error") == "skip";
  return std::make_shared<GlueDataset>(glue_task(task), options.at("dir").get<std::string>(), skip);
}

}  // namespace runner
