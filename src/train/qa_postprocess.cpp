#include "train/qa_postprocess.h"

#include "tokenizer/offset_stream.h"

#include "util/diagnostic.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace runner {
namespace qa_postprocess_parts {

struct Scored {
  CharSpan span;
  float score, start_logit, end_logit;
  bool null = false;
};

[[noreturn]] void refuse(const std::string& message, const std::string& hint) {
  throw InputError(make_error({}, "", message, hint));
}

// np.argsort(logits)[-1:-n-1:-1]: the n largest, largest first; equal values
// come out later index first.
std::vector<size_t> best_positions(const std::vector<float>& logits, int n) {
  std::vector<size_t> order(logits.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return logits[a] < logits[b]; });
  std::reverse(order.begin(), order.end());
  if (order.size() > static_cast<size_t>(n)) order.resize(static_cast<size_t>(n));
  return order;
}

void add_window_candidates(const QaWindow& w, const QaPostprocessOptions& options, std::vector<Scored>& out) {
  const auto starts = best_positions(w.start_logits, options.n_best_size);
  const auto ends = best_positions(w.end_logits, options.n_best_size);
  for (size_t s : starts)
    for (size_t e : ends) {
      if (s >= w.offsets.size() || e >= w.offsets.size() || !w.offsets[s] || !w.offsets[e]) continue;
      if (e < s || static_cast<long long>(e - s) + 1 > options.max_answer_length) continue;
      out.push_back({{w.offsets[s]->start, w.offsets[e]->end}, w.start_logits[s] + w.end_logits[e],
                     w.start_logits[s], w.end_logits[e], false});
    }
}

// context[start:end] in code points, clamped as Python slices clamp.
std::string characters(const std::string& text, CharSpan span) {
  const auto chars = runner::offsets::utf8_characters(text);
  const auto n = static_cast<int32_t>(chars.size());
  std::string out;
  for (int32_t i = std::max(0, span.start); i < std::min(n, span.end); ++i) out += chars[static_cast<size_t>(i)];
  return out;
}

// numpy's softmax with the max subtracted, in double.
void set_probabilities(std::vector<QaCandidate>& list, const std::vector<float>& scores) {
  const double top = *std::max_element(scores.begin(), scores.end());
  double sum = 0.0;
  std::vector<double> e(scores.size());
  for (size_t i = 0; i < scores.size(); ++i) sum += e[i] = std::exp(static_cast<double>(scores[i]) - top);
  for (size_t i = 0; i < list.size(); ++i) list[i].probability = e[i] / sum;
}

QaAnswer answer_of(const QaContext& example, const std::vector<const QaWindow*>& windows,
                   const QaPostprocessOptions& options) {
  std::vector<Scored> prelim;
  std::optional<Scored> min_null;
  for (const QaWindow* w : windows) {
    const float null_score = w->start_logits[0] + w->end_logits[0];
    if (!min_null || min_null->score > null_score)
      min_null = Scored{{0, 0}, null_score, w->start_logits[0], w->end_logits[0], true};
    add_window_candidates(*w, options, prelim);
  }
  const bool v2 = options.version_2_with_negative;
  if (v2) prelim.push_back(*min_null);
  std::stable_sort(prelim.begin(), prelim.end(), [](const Scored& a, const Scored& b) { return a.score > b.score; });
  if (prelim.size() > static_cast<size_t>(options.n_best_size)) prelim.resize(static_cast<size_t>(options.n_best_size));
  const auto is_zero = [](const Scored& s) { return s.span.start == 0 && s.span.end == 0; };
  if (v2 && std::none_of(prelim.begin(), prelim.end(), is_zero)) prelim.push_back(*min_null);

  QaAnswer answer;
  answer.id = example.id;
  std::vector<float> scores;
  for (const Scored& s : prelim) {
    answer.n_best.push_back({characters(example.context, s.span), s.span, s.start_logit, s.end_logit, 0.0});
    scores.push_back(s.score);
  }
  if (answer.n_best.empty() || (answer.n_best.size() == 1 && answer.n_best[0].text.empty())) {
    answer.n_best.insert(answer.n_best.begin(), QaCandidate{"empty", {0, 0}, 0.0f, 0.0f, 0.0});
    scores.insert(scores.begin(), 0.0f);
  }
  set_probabilities(answer.n_best, scores);
  if (!v2) {
    answer.text = answer.n_best[0].text;
    return answer;
  }
  size_t i = 0;
  while (answer.n_best[i].text.empty()) ++i;
  const QaCandidate& best = answer.n_best[i];
  const float diff = min_null->score - best.start_logit - best.end_logit;
  answer.null_score_diff = diff;
  answer.text = static_cast<double>(diff) > options.null_score_diff_threshold ? std::string() : best.text;
  return answer;
}

}  // namespace qa_postprocess_parts

std::vector<QaAnswer> postprocess_qa_predictions(const std::vector<QaContext>& examples,
                                                 const std::vector<QaWindow>& windows,
                                                 const QaPostprocessOptions& options) {
  using namespace qa_postprocess_parts;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < examples.size(); ++i) index.emplace(examples[i].id, i);
  std::vector<std::vector<const QaWindow*>> per_example(examples.size());
  for (const QaWindow& w : windows) {
    auto it = index.find(w.example_id);
    if (it == index.end()) refuse("a window of question \"" + w.example_id + "\", which no example has", "post-process the windows of the examples given");
    if (w.start_logits.size() != w.offsets.size() || w.end_logits.size() != w.offsets.size() || w.offsets.empty())
      refuse("a window of question \"" + w.example_id + "\" has " + std::to_string(w.offsets.size()) + " offsets but " +
                 std::to_string(w.start_logits.size()) + " start and " + std::to_string(w.end_logits.size()) + " end logits",
             "give one start and one end logit per position");
    per_example[it->second].push_back(&w);
  }
  std::vector<QaAnswer> answers;
  for (size_t i = 0; i < examples.size(); ++i) {
    if (per_example[i].empty()) refuse("question \"" + examples[i].id + "\" has no window", "post-process every example's windows");
    answers.push_back(answer_of(examples[i], per_example[i], options));
  }
  return answers;
}

}  // namespace runner
