// Start/end logits of the windows (features) of each question turned into
// its answer text, as Transformers' examples' utils_qa.py
// postprocess_qa_predictions does it: for every window, the n_best_size best
// start and end positions; a pair is a candidate when both are context tokens
// (an offset), the end is not before the start and the span is at most
// max_answer_length tokens; its score is start logit + end logit in float32.
// The n_best_size best candidates over all windows, by score (ties keep the
// order they were found in), give the answer. For SQuAD v2.0 the null answer
// (the CLS position, the lowest null score over the windows) is a candidate
// too, and it wins when its score minus the best non-null candidate's logits
// exceeds null_score_diff_threshold.
#pragma once

#include "tokenizer/token_offsets.h"

#include <optional>
#include <string>
#include <vector>

namespace runner {

struct QaContext {
  std::string id;
  std::string context;  // UTF-8; offsets count its code points
};

struct QaWindow {
  std::string example_id;
  // One per position of the window: the context characters of a context
  // token, none for the question, special and padding tokens.
  std::vector<std::optional<CharSpan>> offsets;
  std::vector<float> start_logits, end_logits;  // one per position
};

struct QaPostprocessOptions {
  bool version_2_with_negative = false;
  int n_best_size = 20;
  int max_answer_length = 30;
  double null_score_diff_threshold = 0.0;
};

struct QaCandidate {
  std::string text;
  CharSpan span;  // in the context's characters; (0, 0) for the null answer
  float start_logit = 0.0f, end_logit = 0.0f;
  double probability = 0.0;  // softmax of the scores over the n-best list
};

struct QaAnswer {
  std::string id;
  std::string text;  // "" when v2.0 predicts no answer
  std::vector<QaCandidate> n_best;
  std::optional<float> null_score_diff;  // v2.0: null score minus the best non-null candidate's
};

// One answer per context, in their order. Throws InputError for a window of
// no context, a window whose logits and offsets differ in length, or a
// context without windows.
std::vector<QaAnswer> postprocess_qa_predictions(const std::vector<QaContext>& examples,
                                                 const std::vector<QaWindow>& windows,
                                                 const QaPostprocessOptions& options);

}  // namespace runner
