// SQuAD v1.1 and v2.0 exact match and F1, in the official scripts' order of
// operations, so the same doubles come out.
#include "train/metrics_squad.h"
#include "util/diagnostic.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace runner {
namespace squad_scores {

std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> tokens;
  const std::string normalized = squad_normalize_answer(text);
  size_t start = 0;
  while (start < normalized.size()) {
    size_t end = normalized.find(' ', start);
    if (end == std::string::npos) end = normalized.size();
    tokens.push_back(normalized.substr(start, end - start));
    start = end + 1;
  }
  return tokens;
}

// sum((Counter(a) & Counter(b)).values())
long long shared_token_count(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::map<std::string, long long> counts;
  for (const auto& t : a) ++counts[t];
  long long shared = 0;
  for (const auto& t : b) {
    auto it = counts.find(t);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++shared;
    }
  }
  return shared;
}

double token_f1(const std::vector<std::string>& gold, const std::vector<std::string>& pred, long long same) {
  const double precision = 1.0 * static_cast<double>(same) / static_cast<double>(pred.size());
  const double recall = 1.0 * static_cast<double>(same) / static_cast<double>(gold.size());
  return (2 * precision * recall) / (precision + recall);
}

[[noreturn]] void refuse(const std::string& message, const std::string& hint) {
  throw InputError(make_error({}, "", message, hint));
}

std::unordered_map<std::string, const SquadPrediction*> predictions_by_id(
    const std::vector<SquadPrediction>& predictions, const std::vector<SquadReference>& references) {
  if (references.empty()) refuse("SQuAD scores need at least one reference question", "give the evaluation split's questions");
  std::unordered_set<std::string> reference_ids;
  for (const auto& r : references)
    if (!reference_ids.insert(r.id).second)
      refuse("question id \"" + r.id + "\" is in the references twice", "give each question its own id");
  std::unordered_map<std::string, const SquadPrediction*> by_id;
  for (const auto& p : predictions) {
    if (!by_id.emplace(p.id, &p).second)
      refuse("question id \"" + p.id + "\" is predicted twice", "give one prediction a question");
    if (!reference_ids.count(p.id))
      refuse("prediction for \"" + p.id + "\", which no reference question has", "predict the references' questions only");
  }
  return by_id;
}

}  // namespace squad_scores

int squad_exact(std::string_view gold, std::string_view prediction) {
  return squad_normalize_answer(gold) == squad_normalize_answer(prediction) ? 1 : 0;
}

double squad_f1_v1(std::string_view gold, std::string_view prediction) {
  using namespace squad_scores;
  const auto gold_tokens = tokens_of(gold);
  const auto pred_tokens = tokens_of(prediction);
  const long long same = shared_token_count(gold_tokens, pred_tokens);
  if (same == 0) return 0.0;
  return token_f1(gold_tokens, pred_tokens, same);
}

double squad_f1_v2(std::string_view gold, std::string_view prediction) {
  using namespace squad_scores;
  const auto gold_tokens = tokens_of(gold);
  const auto pred_tokens = tokens_of(prediction);
  if (gold_tokens.empty() || pred_tokens.empty()) return gold_tokens == pred_tokens ? 1.0 : 0.0;
  const long long same = shared_token_count(gold_tokens, pred_tokens);
  if (same == 0) return 0.0;
  return token_f1(gold_tokens, pred_tokens, same);
}

SquadV1Scores squad_v1_scores(const std::vector<SquadPrediction>& predictions,
                              const std::vector<SquadReference>& references) {
  using namespace squad_scores;
  const auto by_id = predictions_by_id(predictions, references);
  double exact = 0.0, f1 = 0.0;
  for (const auto& r : references) {
    if (r.answers.empty())
      refuse("v1.1 question \"" + r.id + "\" has no gold answer", "give it its answer, or score the split as SQuAD v2.0");
    auto it = by_id.find(r.id);
    if (it == by_id.end()) continue;  // an unanswered question scores 0, as the official script counts it
    int best_exact = 0;
    double best_f1 = 0.0;
    for (const auto& gold : r.answers) {
      best_exact = std::max(best_exact, squad_exact(gold, it->second->text));
      best_f1 = std::max(best_f1, squad_f1_v1(gold, it->second->text));
    }
    exact += best_exact;
    f1 += best_f1;
  }
  const double total = static_cast<double>(references.size());
  return {100.0 * exact / total, 100.0 * f1 / total};
}

namespace squad_scores {

// The v2.0 script's raw per-question scores, in reference order.
struct RawScores {
  std::vector<double> exact, f1;
  std::vector<bool> has_answer;
  std::vector<const SquadPrediction*> prediction;
};

RawScores raw_v2_scores(const std::unordered_map<std::string, const SquadPrediction*>& by_id,
                        const std::vector<SquadReference>& references) {
  RawScores raw;
  for (const auto& r : references) {
    auto it = by_id.find(r.id);
    if (it == by_id.end())
      refuse("question \"" + r.id + "\" has no prediction", "predict every question (\"\" for no answer)");
    std::vector<std::string> golds;
    for (const auto& a : r.answers)
      if (!squad_normalize_answer(a).empty()) golds.push_back(a);
    if (golds.empty()) golds.push_back("");
    int best_exact = 0;
    double best_f1 = 0.0;
    for (const auto& gold : golds) {
      best_exact = std::max(best_exact, squad_exact(gold, it->second->text));
      best_f1 = std::max(best_f1, squad_f1_v2(gold, it->second->text));
    }
    raw.exact.push_back(best_exact);
    raw.f1.push_back(best_f1);
    raw.has_answer.push_back(!r.answers.empty());
    raw.prediction.push_back(it->second);
  }
  return raw;
}

// apply_no_ans_threshold: a question predicted unanswerable scores 1 when it is.
std::vector<double> thresholded(const std::vector<double>& scores, const RawScores& raw, double threshold) {
  std::vector<double> out(scores);
  for (size_t i = 0; i < out.size(); ++i)
    if (raw.prediction[i]->no_answer_probability > threshold) out[i] = raw.has_answer[i] ? 0.0 : 1.0;
  return out;
}

// make_eval_dict over the questions whose has_answer is `which` (all when `all`).
SquadSplitScores split_scores(const std::vector<double>& exact, const std::vector<double>& f1,
                              const RawScores& raw, bool all, bool which) {
  SquadSplitScores s;
  double exact_sum = 0.0, f1_sum = 0.0;
  for (size_t i = 0; i < exact.size(); ++i) {
    if (!all && raw.has_answer[i] != which) continue;
    exact_sum += exact[i];
    f1_sum += f1[i];
    ++s.total;
  }
  s.exact = 100.0 * exact_sum / static_cast<double>(s.total);
  s.f1 = 100.0 * f1_sum / static_cast<double>(s.total);
  return s;
}

// find_best_thresh: walk the questions by rising no-answer probability (ties in
// prediction order, as Python's stable sort), counting what answering each one
// gains, and keep the best running score.
std::pair<double, double> best_threshold(const std::vector<SquadPrediction>& predictions,
                                         const std::unordered_map<std::string, size_t>& index,
                                         const std::vector<double>& scores, const RawScores& raw) {
  long long no_answer_count = 0;
  for (bool has : raw.has_answer) no_answer_count += has ? 0 : 1;
  std::vector<const SquadPrediction*> order;
  for (const auto& p : predictions) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const SquadPrediction* a, const SquadPrediction* b) {
    return a->no_answer_probability < b->no_answer_probability;
  });
  double current = static_cast<double>(no_answer_count), best = current, best_thresh = 0.0;
  for (const SquadPrediction* p : order) {
    const size_t i = index.at(p->id);
    current += raw.has_answer[i] ? scores[i] : (p->text.empty() ? 0.0 : -1.0);
    if (current > best) {
      best = current;
      best_thresh = p->no_answer_probability;
    }
  }
  return {100.0 * best / static_cast<double>(scores.size()), best_thresh};
}

}  // namespace squad_scores

SquadV2Scores squad_v2_scores(const std::vector<SquadPrediction>& predictions,
                              const std::vector<SquadReference>& references, double no_answer_threshold) {
  using namespace squad_scores;
  const auto by_id = predictions_by_id(predictions, references);
  const RawScores raw = raw_v2_scores(by_id, references);
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < references.size(); ++i) index.emplace(references[i].id, i);

  const auto exact = thresholded(raw.exact, raw, no_answer_threshold);
  const auto f1 = thresholded(raw.f1, raw, no_answer_threshold);
  SquadV2Scores out;
  out.all = split_scores(exact, f1, raw, true, true);
  out.has_answerable = std::count(raw.has_answer.begin(), raw.has_answer.end(), true) > 0;
  if (out.has_answerable) out.answerable = split_scores(exact, f1, raw, false, true);
  out.has_unanswerable = std::count(raw.has_answer.begin(), raw.has_answer.end(), false) > 0;
  if (out.has_unanswerable) out.unanswerable = split_scores(exact, f1, raw, false, false);
  std::tie(out.best_exact, out.best_exact_thresh) = best_threshold(predictions, index, raw.exact, raw);
  std::tie(out.best_f1, out.best_f1_thresh) = best_threshold(predictions, index, raw.f1, raw);
  return out;
}

}  // namespace runner
