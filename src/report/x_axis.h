// What the x axis of a report's run charts counts (`runner report --x`), and
// where one event of metrics.jsonl lies on it.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace runner {

enum class XAxis { Step, Samples, Epoch, Time };

// "step", "samples", "epoch" or "time"; nullopt for anything else.
std::optional<XAxis> parse_x_axis(const std::string& name);
// The axis title, with how the value is derived.
std::string x_axis_label(XAxis axis);

// Places the events of one run on an axis, read in file order. Samples are the
// step times the effective batch: train events carry it; an event without one
// (evaluations) takes the last train event's, or before the first one the
// recipe's (train_batch_size x grad_accum x processes). Epochs are the step over
// the steps per epoch of the "start" event (its integer epoch without one).
// Time is the event's elapsed_s: the run's wall seconds, earlier sessions
// included, so a resumed run stays continuous.
class XPlacer {
 public:
  XPlacer(XAxis axis, const nlohmann::json& resolved_recipe);
  XAxis axis() const { return axis_; }
  // Learns what later events need (steps per epoch, the effective batch).
  void note(const nlohmann::json& event);
  // The event's x, or nullopt when it lacks what the axis needs.
  std::optional<double> x_of(const nlohmann::json& event) const;

 private:
  XAxis axis_;
  double steps_per_epoch_ = 0;
  double effective_batch_ = 0;
  double recipe_batch_ = 0;
};

}  // namespace runner
