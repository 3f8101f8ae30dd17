// Question answering's metric components: the official SQuAD scores
// (train/metrics_squad.h) of an evaluation's post-processed answers.
#include "train/metric.h"

namespace runner {

double squad_exact_match(const MetricInput& in) {
  if (in.squad_v2) return squad_v2_scores(in.answers, in.references).all.exact;
  return squad_v1_scores(in.answers, in.references).exact_match;
}

double squad_f1(const MetricInput& in) {
  if (in.squad_v2) return squad_v2_scores(in.answers, in.references).all.f1;
  return squad_v1_scores(in.answers, in.references).f1;
}

nlohmann::json squad_v2_splits(const MetricInput& in) {
  nlohmann::json out = nlohmann::json::object();
  if (!in.squad_v2) return out;
  const SquadV2Scores s = squad_v2_scores(in.answers, in.references);
  auto add = [&out](const std::string& prefix, const SquadSplitScores& split) {
    out[prefix + "_exact"] = split.exact;
    out[prefix + "_f1"] = split.f1;
    out[prefix + "_total"] = split.total;
  };
  if (s.has_answerable) add("HasAns", s.answerable);
  if (s.has_unanswerable) add("NoAns", s.unanswerable);
  return out;
}

}  // namespace runner
