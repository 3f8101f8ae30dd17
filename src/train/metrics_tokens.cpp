// The token classification metrics of an evaluation: its tag ids read back
// into tag sentences and scored by seqeval's rules (train/metrics_entities.h).
#include "train/metric.h"
#include "train/metrics_entities.h"

#include <stdexcept>

namespace runner {
namespace {

std::string tag_name(const MetricInput& in, long long id) {
  return id >= 0 && static_cast<size_t>(id) < in.tag_names.size() ? in.tag_names[static_cast<size_t>(id)]
                                                                    : std::to_string(id);
}

EntityReport report_of(const MetricInput& in) {
  if (in.predictions.size() != in.labels.size())
    throw std::logic_error("metric: predictions and labels differ in length");
  TagSentences truth(1), predicted(1);
  for (size_t i = 0; i < in.labels.size(); ++i) {
    if (in.labels[i] == kSentenceEnd) {
      truth.emplace_back();
      predicted.emplace_back();
      continue;
    }
    truth.back().push_back(tag_name(in, in.labels[i]));
    predicted.back().push_back(tag_name(in, in.predictions[i]));
  }
  if (truth.back().empty()) {  // the one opened after the last sentence's end
    truth.pop_back();
    predicted.pop_back();
  }
  return entity_report(truth, predicted);
}

}  // namespace

double entity_precision(const MetricInput& in) { return report_of(in).micro.precision; }
double entity_recall(const MetricInput& in) { return report_of(in).micro.recall; }
double entity_f1(const MetricInput& in) { return report_of(in).micro.f1; }
double token_accuracy(const MetricInput& in) { return report_of(in).accuracy; }

nlohmann::json per_entity_details(const MetricInput& in) {
  nlohmann::json out = {{"names", nlohmann::json::array()}, {"precision", nlohmann::json::array()},
                        {"recall", nlohmann::json::array()}, {"f1", nlohmann::json::array()},
                        {"support", nlohmann::json::array()}};
  for (const EntityTypeScores& t : report_of(in).per_type) {
    out["names"].push_back(t.type);
    out["precision"].push_back(t.scores.precision);
    out["recall"].push_back(t.scores.recall);
    out["f1"].push_back(t.scores.f1);
    out["support"].push_back(t.scores.support);
  }
  return out;
}

}  // namespace runner
