// The `tensorboard` logger: <run dir>/tensorboard/events.out.tfevents.<time>.<host>,
// TFRecord-framed Event protobufs with scalar summaries, which
// `tensorboard --logdir runs/` reads (every run is one TensorBoard run).
#pragma once

#include "train/logger.h"

#include <memory>
#include <string>

namespace runner {

// Train events become scalars "train/<field>" (loss, lr, grad_norm, loss_scale,
// samples_per_s, ...), eval events "eval/<metric>", both at the event's step.
// On a resume the file starts with a SessionLog START at the resumed step, so
// TensorBoard drops the points of the abandoned steps after it.
std::unique_ptr<Logger> make_tensorboard_logger(const LoggerContext& ctx);

// One TFRecord: length, masked CRC-32C of the length, data, masked CRC-32C of the data.
std::string tfrecord(const std::string& data);

}  // namespace runner
