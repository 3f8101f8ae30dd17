#include "train/qa_evaluation.h"

#include <fmt/format.h>

#include <stdexcept>

namespace runner {

std::shared_ptr<const QaEvalData> qa_eval_data(const std::vector<QaExample>& examples,
                                                const std::vector<QaFeature>& features, size_t window_count,
                                                const QaSettings& settings) {
  auto out = std::make_shared<QaEvalData>();
  out->options.version_2_with_negative = settings.version == SquadVersion::V2_0;
  out->options.n_best_size = settings.n_best_size;
  out->options.max_answer_length = settings.max_answer_length;
  out->options.null_score_diff_threshold = settings.null_score_diff_threshold;
  std::vector<bool> covered(examples.size(), false);
  for (size_t i = 0; i < window_count && i < features.size(); ++i) {
    const QaFeature& f = features[i];
    covered[f.example] = true;
    out->windows.push_back(QaWindow{examples[f.example].id, f.offsets, {}, {}});
  }
  for (size_t e = 0; e < examples.size(); ++e) {
    if (!covered[e]) continue;
    out->contexts.push_back(QaContext{examples[e].id, examples[e].context});
    SquadReference r{examples[e].id, {}};
    for (const QaAnswerSpan& a : examples[e].answers) r.answers.push_back(a.text);
    out->references.push_back(std::move(r));
  }
  return out;
}

QaWindow qa_window_with_logits(const QaEvalData& data, size_t index, const float* logits, int64_t length) {
  if (index >= data.windows.size())
    throw std::logic_error(fmt::format("evaluation row {} is past the {} question windows", index, data.windows.size()));
  QaWindow w = data.windows[index];
  // A batch padded shorter than max_length: the positions cut are the window's padding.
  w.offsets.resize(static_cast<size_t>(length));
  for (int64_t t = 0; t < length; ++t) {
    w.start_logits.push_back(logits[2 * t]);
    w.end_logits.push_back(logits[2 * t + 1]);
  }
  return w;
}

void add_qa_answers(const QaEvalData& data, const std::vector<QaWindow>& windows, MetricInput& in) {
  in.squad_v2 = data.options.version_2_with_negative;
  in.references = data.references;
  for (const QaAnswer& a : postprocess_qa_predictions(data.contexts, windows, data.options))
    in.answers.push_back(SquadPrediction{a.id, a.text, 0.0});
}

}  // namespace runner
