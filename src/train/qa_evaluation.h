// A question answering evaluation: the windows' start and end logits turned
// into one answer per question by run_qa.py's post-processing
// (train/qa_postprocess.h), scored on the original questions, not the windows.
#pragma once

#include "data/qa_features.h"
#include "data/qa_settings.h"
#include "train/metric.h"
#include "train/qa_postprocess.h"

#include <memory>
#include <vector>

namespace runner {

struct QaEvalData {
  std::vector<QaContext> contexts;         // the questions some window covers, in file order
  std::vector<SquadReference> references;  // their gold answers, in the same order
  std::vector<QaWindow> windows;           // each window's question id and offsets; logits empty
  QaPostprocessOptions options;
};

// The first `window_count` windows of `features` (an evaluation cut by
// data.max_eval_examples keeps that many) and the questions they cover.
std::shared_ptr<const QaEvalData> qa_eval_data(const std::vector<QaExample>& examples,
                                                const std::vector<QaFeature>& features, size_t window_count,
                                                const QaSettings& settings);

// Window `index` with its logits: `length` positions of (start, end) pairs, as
// a [length, 2] row-major block; positions past the window's own are padding.
QaWindow qa_window_with_logits(const QaEvalData& data, size_t index, const float* logits, int64_t length);

// The windows' answers, post-processed, and the references, into `in`.
void add_qa_answers(const QaEvalData& data, const std::vector<QaWindow>& windows, MetricInput& in);

}  // namespace runner
