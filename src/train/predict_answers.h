// `runner predict` with an extractive question answering model. Each input
// line is {"question": "...", "context": "..."}; "id" and any other key are
// copied through. A long context is cut into windows and the answer picked
// from their start and end logits as run_qa.py's post-processing picks it
// (train/qa_postprocess.h), with the run's data settings (version,
// doc_stride, n_best_size, max_answer_length, null_score_diff_threshold).
// The output line adds "answer" (the text; "" when a SQuAD v2.0 model
// answers that the context holds none), and for an answer its "start" and
// "end" in the context (code points, as Python's str indices count them)
// and "score" (its softmax probability over the n-best candidates); a v2.0
// model's line also has "null_score_diff".
#pragma once

#include "model/predict.h"

#include <iosfwd>

namespace runner {

// Returns the exit code: 0, or 2 for bad input (messages go to `err`).
int run_answer_predict(const PredictCommandOptions& options, std::istream& in, std::ostream& out,
                       std::ostream& err);

}  // namespace runner
