#include "run/best_weights.h"

#include "model/base_weights.h"
#include "train/checkpoint_io.h"
#include "util/diagnostic.h"

namespace runner {

void load_best_weights(TaskModel& model, const std::string& checkpoints_dir,
                       const std::string& checkpoint) {
  const std::string dir = checkpoints_dir + "/" + checkpoint;
  // final/ is not written when this fails: the newest checkpoint holds the last weights.
  const std::string hint = "the run's last weights are in its newest checkpoint: `runner export RUN --to DIR` "
                           "writes them; or train again without train.load_best_at_end";
  if (std::string bad = verify_checkpoint(dir); !bad.empty())
    throw InputError(make_error(SourceLocation{dir, 0, 0, {}}, "train.load_best_at_end",
                                "the best checkpoint fails its sha256 manifest: " + bad, hint));
  const std::string weights = dir + "/model.safetensors";
  load_run_weights(model, weights).require_complete(hint);
}

}  // namespace runner
