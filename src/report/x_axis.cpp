#include "report/x_axis.h"

#include "util/json_input.h"

namespace runner {

std::optional<XAxis> parse_x_axis(const std::string& name) {
  if (name == "step") return XAxis::Step;
  if (name == "samples") return XAxis::Samples;
  if (name == "epoch") return XAxis::Epoch;
  if (name == "time") return XAxis::Time;
  return std::nullopt;
}

std::string x_axis_label(XAxis axis) {
  switch (axis) {
    case XAxis::Samples: return "training samples (step \u00d7 effective batch)";
    case XAxis::Epoch: return "epoch (steps / steps per epoch)";
    case XAxis::Time: return "elapsed time (s, resumed sessions included)";
    case XAxis::Step: break;
  }
  return "optimizer step";
}

XPlacer::XPlacer(XAxis axis, const nlohmann::json& resolved) : axis_(axis) {
  // In doubles: a damaged recipe's huge integers must not overflow.
  nlohmann::json topology = record_object(resolved, "topology");
  recipe_batch_ = record_number(record_object(resolved, "data"), "train_batch_size", 0) *
                  record_number(record_object(resolved, "train"), "grad_accum", 1) *
                  record_number(topology, "nodes", 1) * record_number(topology, "processes_per_node", 1);
}

void XPlacer::note(const nlohmann::json& e) {
  std::optional<double> per_epoch = number_at(e, "steps_per_epoch");
  if (record_string(e, "event") == "start" && per_epoch && *per_epoch > 0) steps_per_epoch_ = *per_epoch;
  if (auto batch = number_at(e, "effective_batch"); batch && *batch > 0) effective_batch_ = *batch;
}

std::optional<double> XPlacer::x_of(const nlohmann::json& e) const {
  std::optional<double> step = number_at(e, "step");
  if (!step) return std::nullopt;
  switch (axis_) {
    case XAxis::Step: return step;
    case XAxis::Samples: {
      double batch = effective_batch_ > 0 ? effective_batch_ : recipe_batch_;
      if (batch <= 0) return std::nullopt;
      return *step * batch;
    }
    case XAxis::Epoch:
      if (steps_per_epoch_ > 0) return *step / steps_per_epoch_;
      return number_at(e, "epoch");
    case XAxis::Time: return number_at(e, "elapsed_s");
  }
  return std::nullopt;
}

}  // namespace runner
