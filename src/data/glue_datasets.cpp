// GLUE MRPC and SST-2 as distributed: tab-separated, no quoting, a BOM on
// some files, a header line, and label-less test splits.
#include "data/dataset.h"
#include "data/table_rows.h"
#include "util/diagnostic.h"

#include <filesystem>

namespace runner {

namespace {

struct GlueTask {
  std::string name;                       // "mrpc"
  ColumnLayout labelled;                  // train/dev
  ColumnLayout unlabelled;                // test
  DatasetInfo info;
};

GlueTask mrpc_task() {
  GlueTask t;
  t.name = "mrpc";
  // Quality \t #1 ID \t #2 ID \t #1 String \t #2 String ; test: index instead of Quality
  t.labelled = {3, 4, 0, 5};
  t.unlabelled = {3, 4, -1, 5};
  t.info = {2, {"not_equivalent", "equivalent"}, {"accuracy", "f1"}, "f1", true};
  return t;
}

GlueTask sst2_task() {
  GlueTask t;
  t.name = "sst2";
  // sentence \t label ; test: index \t sentence
  t.labelled = {0, -1, 1, 2};
  t.unlabelled = {1, -1, -1, 2};
  t.info = {2, {"negative", "positive"}, {"accuracy"}, "accuracy", false};
  return t;
}

class GlueDataset : public Dataset {
 public:
  GlueDataset(GlueTask task, std::string dir, bool skip_bad_rows)
      : task_(std::move(task)), dir_(std::move(dir)), skip_(skip_bad_rows) {}

  const DatasetInfo& info() const override { return task_.info; }

  std::string split_file(const std::string& split) const override {
    if (split != "train" && split != "dev" && split != "test")
      throw InputError(make_error({}, "data.train_split",
                                  "GLUE " + task_.name + " has no split '" + split + "'",
                                  "use \"train\", \"dev\" or \"test\""));
    return (std::filesystem::path(dir_) / (split + ".tsv")).string();
  }

  SplitData load_split(const std::string& split) const override {
    SplitData out;
    out.split = split;
    out.file = split_file(split);
    BadRowHandler policy(out.file, skip_);
    std::string text = read_text_file(out.file);
    std::vector<Row> rows = tsv_rows(split_lines(text), true, policy, out.skipped);
    LabelReader labels;
    labels.num_labels = task_.info.num_labels;
    rows_to_examples(rows, split == "test" ? task_.unlabelled : task_.labelled, labels, policy, out);
    return out;
  }

 private:
  GlueTask task_;
  std::string dir_;
  bool skip_;
};

}  // namespace

std::shared_ptr<const Dataset> make_glue_dataset(const std::string& task, const nlohmann::json& options) {
  bool skip = options.value("on_bad_row", "error") == "skip";
  GlueTask t = task == "mrpc" ? mrpc_task() : sst2_task();
  return std::make_shared<GlueDataset>(std::move(t), options.at("dir").get<std::string>(), skip);
}

}  // namespace runner
