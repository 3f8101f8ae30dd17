// Registration of the built-in datasets and their options.
#include "data/dataset.h"
#include "registry/builtins.h"
#include "registry/registry.h"

namespace runner {

std::shared_ptr<const Dataset> make_glue_dataset(const std::string& task, const nlohmann::json& options);
std::shared_ptr<const Dataset> make_file_dataset(const std::string& format, const nlohmann::json& options);

namespace {

ComponentSpec glue_spec(const std::string& name, const std::string& dir, const std::string& doc) {
  return {Kind::Dataset, name, doc,
          {opt::data_path("dir", dir, "Folder with train.tsv, dev.tsv and test.tsv")}};
}

ComponentSpec file_spec(const std::string& format) {
  return {Kind::Dataset,
          format,
          "Labelled text from ." + format + " files, one per split, with a column mapping",
          {
              opt::required(opt::data_path("dir", "", "Folder holding the split files")),
              opt::string_map("files", "Split name -> file name; default <split>." + format),
              opt::string_map("columns",
                              "Role (text_a, text_b, label) -> column name, JSON key or 0-based "
                              "index; default text_a and label"),
              opt::flag("header", true, "The first line names the columns (tsv, csv)"),
              opt::int_map("labels", "Label text -> id; empty means labels are integers"),
              opt::integer("num_labels", 2, "Number of classes (at most 100000: one classifier row each)")
                  .at_least(1)
                  .at_most(100000),
              opt::strings("metrics", {"accuracy"}, "Metric components to evaluate"),
              opt::text("main_metric", "accuracy", "The metric that picks the best checkpoint"),
          }};
}

}  // namespace

void register_datasets(Registry& r) {
  add_builtin(r, glue_spec("glue/mrpc", "glue/MRPC", "GLUE MRPC paraphrase pairs (accuracy, F1)"),
              DatasetFactory([](const nlohmann::json& o) { return make_glue_dataset("mrpc", o); }));
  add_builtin(r, glue_spec("glue/sst2", "glue/SST-2", "GLUE SST-2 sentence sentiment (accuracy)"),
              DatasetFactory([](const nlohmann::json& o) { return make_glue_dataset("sst2", o); }));
  for (const char* format : {"tsv", "csv", "jsonl"})
    add_builtin(r, file_spec(format), DatasetFactory([format](const nlohmann::json& o) {
                  return make_file_dataset(format, o);
                }));
}

}  // namespace runner
