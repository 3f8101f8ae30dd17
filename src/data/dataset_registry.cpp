// Registration of the built-in datasets and their options.
#include "data/dataset.h"
#include "registry/builtins.h"
#include "registry/registry.h"
#include "util/input_file.h"
#include "util/json_input.h"

#include <filesystem>

namespace runner {

std::shared_ptr<const Dataset> make_glue_dataset(const std::string& task, const nlohmann::json& options);
std::shared_ptr<const Dataset> make_file_dataset(const std::string& format, const nlohmann::json& options);

namespace {

// A split file that is a FIFO or a device would block the run's first read,
// after its run directory exists: validate refuses it, naming the file.
std::function<Diagnostics(const nlohmann::json&)> split_files_check(const std::string& format) {
  return [format](const nlohmann::json& recipe) {
    Diagnostics out;
    nlohmann::json data = record_object(recipe, "data"), files = record_object(data, "files");
    std::string dir = record_string(data, "dir");
    if (dir.empty()) return out;
    for (const char* key : {"train_split", "eval_split"}) {
      std::string split = record_string(data, key);
      std::string name = record_string(files, split.c_str(), split + "." + format);
      std::string file = (std::filesystem::path(dir) / name).string();
      std::string kind = split.empty() ? "" : special_file_kind(file);
      if (!kind.empty())
        out.push_back(make_error({file, 0, 0, {}}, std::string("data.") + key,
                                 "the " + split + " split's file is " + kind + ", not a regular file",
                                 "put the split in a regular file: a pipe or a device would block the run's "
                                 "first read"));
    }
    return out;
  };
}

ComponentSpec glue_spec(const std::string& name, const std::string& dir, const std::string& doc) {
  ComponentSpec spec{Kind::Dataset, name, doc,
                     {opt::data_path("dir", dir, "Folder with train.tsv, dev.tsv and test.tsv")}};
  spec.recipe_check = split_files_check("tsv");
  return spec;
}

ComponentSpec file_spec(const std::string& format) {
  ComponentSpec spec{Kind::Dataset,
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
  spec.recipe_check = split_files_check(format);
  return spec;
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
