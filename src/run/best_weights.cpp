#include "run/best_weights.h"

#include "model/checkpoint.h"
#include "train/checkpoint_io.h"
#include "util/diagnostic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace runner {

void load_best_weights(SequenceClassifier& model, const std::string& checkpoints_dir,
                       const std::string& checkpoint) {
  const std::string dir = checkpoints_dir + "/" + checkpoint;
  const std::string hint = "the run's own final weights are in its newest checkpoint; export it with "
                           "`runner export RUN --checkpoint final`, or train again without "
                           "train.load_best_at_end";
  if (std::string bad = verify_checkpoint(dir); !bad.empty())
    throw InputError(make_error(SourceLocation{dir, 0, 0, {}}, "train.load_best_at_end",
                                "the best checkpoint fails its sha256 manifest: " + bad, hint));
  const std::string weights = dir + "/model.safetensors";
  LoadReport report = load_state_dict(model, read_safetensors_weights(weights), weights);
  if (!report.missing.empty())
    throw InputError(make_error(SourceLocation{weights, 0, 0, {}}, "train.load_best_at_end",
                                fmt::format("the best checkpoint lacks {} model parameters: {}",
                                            report.missing.size(), fmt::join(report.missing, ", ")),
                                hint));
}

}  // namespace runner
