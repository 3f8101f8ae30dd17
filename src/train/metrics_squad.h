// The official SQuAD scores, as the v1.1 and v2.0 evaluation scripts compute
// them (the `evaluate` library's `squad` and `squad_v2` metrics run those
// scripts), so that a run's numbers compare with papers and run_qa.py.
//
// An answer is normalised before comparing: Python's str.lower(), every ASCII
// punctuation character removed (string.punctuation), every whole word "a",
// "an" or "the" replaced by a space (a word is a run of letters, digits and
// '_', as Python's \w reads Unicode text), whitespace runs collapsed to one
// space (str.split's whitespace). Exact match is 1 when the normalised texts
// are equal; F1 is the harmonic mean of token precision and recall over the
// shared tokens of the two normalised texts. Each question takes the best
// over its gold answers; the totals are percentages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct SquadPrediction {
  std::string id;
  std::string text;                    // "" predicts "no answer" (v2.0)
  double no_answer_probability = 0.0;  // v2.0 only
};

struct SquadReference {
  std::string id;
  std::vector<std::string> answers;  // v2.0: empty for an unanswerable question
};

// The official normalize_answer.
std::string squad_normalize_answer(std::string_view text);
// compute_exact / exact_match_score: 1 or 0.
int squad_exact(std::string_view gold, std::string_view prediction);
// v1.1's f1_score: 0 when either side has no token.
double squad_f1_v1(std::string_view gold, std::string_view prediction);
// v2.0's compute_f1: 1 when both sides have no token, 0 when one has none.
double squad_f1_v2(std::string_view gold, std::string_view prediction);

struct SquadV1Scores {
  double exact_match = 0.0;
  double f1 = 0.0;
};

// v1.1: every reference counts; one with no prediction scores 0. Throws
// InputError for duplicate ids, a prediction of no reference, a reference
// with no gold answer, or no reference.
SquadV1Scores squad_v1_scores(const std::vector<SquadPrediction>& predictions,
                              const std::vector<SquadReference>& references);

struct SquadSplitScores {
  double exact = 0.0;
  double f1 = 0.0;
  long long total = 0;
};

struct SquadV2Scores {
  SquadSplitScores all;
  bool has_answerable = false;    // the HasAns_* keys exist
  SquadSplitScores answerable;    // HasAns_*
  bool has_unanswerable = false;  // the NoAns_* keys exist
  SquadSplitScores unanswerable;  // NoAns_*
  double best_exact = 0.0, best_exact_thresh = 0.0;
  double best_f1 = 0.0, best_f1_thresh = 0.0;
};

// v2.0: a question whose no_answer_probability exceeds no_answer_threshold is
// taken as answered "no answer"; best_* are the scores at the best threshold
// over the no-answer probabilities. A question is unanswerable when its
// answer list is empty; gold answers that normalise to "" are not compared
// (a question left with none compares against ""). Throws InputError for
// duplicate ids, a prediction of no reference, a reference with no
// prediction, or no reference.
SquadV2Scores squad_v2_scores(const std::vector<SquadPrediction>& predictions,
                              const std::vector<SquadReference>& references,
                              double no_answer_threshold = 1.0);

}  // namespace runner
