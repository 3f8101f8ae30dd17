// What an extractive question answering dataset says about its task: the
// SQuAD version, how run_qa.py windows a long context, and how its
// post-processing picks an answer from the windows' start and end logits.
#pragma once

#include "data/squad_rows.h"

namespace runner {

struct QaSettings {
  SquadVersion version = SquadVersion::V1_1;  // V2_0: unanswerable questions, a null answer
  int doc_stride = 128;                       // tokens a window shares with the one before
  int n_best_size = 20;                       // candidates kept per window and per question
  int max_answer_length = 30;                 // in tokens
  double null_score_diff_threshold = 0.0;     // v2.0: how much the null answer must win by
};

}  // namespace runner
