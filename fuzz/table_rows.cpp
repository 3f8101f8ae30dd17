// Delimited rows as the datasets read a split file: the same bytes as a TSV
// and a CSV with a header (SST-2's column names), and as the train and test
// splits of GLUE MRPC and SST-2 (fixed columns, labels 0/1, quoting off).
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "data/dataset.h"
#include "registry/registry.h"

namespace runner::fuzz {
namespace {

void load(const std::string& dataset, const nlohmann::json& options, const std::string& split) {
  refusing_is_fine([&] {
    registry().factory<DatasetFactory>(Kind::Dataset, dataset)(options)->load_split(split);
  });
}

}  // namespace

void table_rows(std::string_view bytes) {
  const std::string dir = scratch_dir() + "/table";
  for (const char* name : {"train.tsv", "test.tsv", "train.csv"}) write_scratch(std::string("table/") + name, bytes);
  // Odd sizes skip bad rows, even sizes stop at the first: both policies run.
  const char* policy = bytes.size() % 2 ? "skip" : "error";
  nlohmann::json file = {{"dir", dir},
                         {"columns", {{"text_a", "sentence"}, {"label", "label"}}},
                         {"on_bad_row", policy}};
  load("tsv", file, "train");
  load("csv", file, "train");
  nlohmann::json glue = {{"dir", dir}, {"on_bad_row", policy}};
  for (const char* task : {"glue/mrpc", "glue/sst2"})
    for (const char* split : {"train", "test"}) load(task, glue, split);
}

}  // namespace runner::fuzz
