// An example dataset plugin: <dir>/<split>.txt with one example a line, written
// "LABEL TEXT" where LABEL is 0 or 1. It exists so that tests can train and
// export a run whose dataset only a plugin provides.
#include "data/dataset.h"
#include "registry/plugin_api.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <fstream>

namespace {

class LabelledLines : public runner::Dataset {
 public:
  explicit LabelledLines(std::string dir) : dir_(std::move(dir)) {
    info_.label_names = {"no", "yes"};
    info_.metrics = {"accuracy"};
    info_.main_metric = "accuracy";
  }
  const runner::DatasetInfo& info() const override { return info_; }
  std::string split_file(const std::string& split) const override { return dir_ + "/" + split + ".txt"; }
  runner::SplitData load_split(const std::string& split) const override;

 private:
  std::string dir_;
  runner::DatasetInfo info_;
};

runner::SplitData LabelledLines::load_split(const std::string& split) const {
  runner::SplitData d;
  d.split = split;
  d.file = split_file(split);
  std::ifstream in(d.file);
  if (!in) throw runner::InputError(fmt::format("{}: cannot open the {} split", d.file, split));
  std::string line;
  for (int64_t row = 0; std::getline(in, line); ++row) {
    if (line.size() < 3 || (line[0] != '0' && line[0] != '1') || line[1] != ' ')
      throw runner::InputError(fmt::format("{}:{}: expected \"0 text\" or \"1 text\"", d.file, row + 1));
    runner::Example e;
    e.label = line[0] - '0';
    e.text_a = line.substr(2);
    e.id = row;
    d.examples.push_back(std::move(e));
  }
  return d;
}

void register_labelled_lines(runner::PluginContext& ctx) {
  runner::ComponentSpec spec{runner::Kind::Dataset, "example/labelled_lines",
                             "Lines \"LABEL TEXT\" in <dir>/<split>.txt (example plugin)",
                             {runner::opt::required(runner::opt::data_path(
                                 "dir", "", "Folder holding train.txt and dev.txt"))}};
  // validate refuses a metric_for_best this dataset does not compute, as for the built-in ones.
  spec.recipe_check = runner::check_dataset_metrics;
  ctx.add(std::move(spec),
          runner::DatasetFactory([](const nlohmann::json& o) -> std::shared_ptr<const runner::Dataset> {
            return std::make_shared<LabelledLines>(o.at("dir").get<std::string>());
          }));
}

}  // namespace

RUNNER_PLUGIN(register_labelled_lines)
