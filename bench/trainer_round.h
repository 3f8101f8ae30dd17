// One timed round of the runner's own Trainer (prefetching batch source, NaN
// check, clipping, optimizer, schedule) over the first `steps` batches of a
// recipe's epoch 0: the runner side of bench/train and bench/step.
#pragma once

#include "recipe/recipe.h"
#include "run/run_data.h"

#include "bench_timing.h"

#include <memory>

namespace bench {

Round trainer_round(const runner::Recipe& recipe, std::shared_ptr<runner::TaskModel> model,
                    const runner::RunData& data, long long steps);

}  // namespace bench
