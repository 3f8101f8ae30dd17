// A question answering evaluation's windows turned into answers on the
// original questions and scored: logits that point at each window's answer
// (or at CLS where it holds none) answer every question right, and logits
// that always point at CLS answer exactly the unanswerable ones. The data is
// the QA smoke recipe's dev split (SQuAD v2.0, 11 answerable questions, 5 not).
#include "catch.h"

#include "data/qa_dataset.h"
#include "shared.h"
#include "tokenizer/wordpiece_loader.h"
#include "train/qa_evaluation.h"

#include <algorithm>

using namespace runner;

namespace {

struct Scored {
  nlohmann::json values;
  MetricInput in;
};

// Every window scored with logits 10 at `start` and `end` of its own choosing, 0 elsewhere.
template <class Pick>
Scored score_windows(Pick pick) {
  auto dataset = make_qa_dataset("squad_jsonl", {{"dir", test::source_dir() + "/recipes/smoke/qa"},
                                                 {"version", "2.0"}, {"doc_stride", 16}});
  const SplitData split = dataset->load_split("dev");
  const auto tokenizer = load_wordpiece({test::shared_dir() + "/models/bert-base-uncased/tokenizer.json"});
  const auto features = qa_features(*tokenizer, split.questions, {48, 16, true}, split.file);
  auto data = qa_eval_data(split.questions, features, features.size(), *dataset->info().qa);
  std::vector<QaWindow> windows;
  for (size_t i = 0; i < features.size(); ++i) {
    const QaFeature& f = features[i];
    // Each window's logits as long as its real tokens, as a batch padded to its longest row may give them.
    const auto length = std::count(f.attention_mask.begin(), f.attention_mask.end(), 1);
    std::vector<float> logits(static_cast<size_t>(2 * length), 0.0f);
    const auto [start, end] = pick(f);
    logits[static_cast<size_t>(2 * start)] = 10.0f;
    logits[static_cast<size_t>(2 * end + 1)] = 10.0f;
    windows.push_back(qa_window_with_logits(*data, i, logits.data(), length));
  }
  Scored s;
  s.in.problem = ProblemType::QuestionAnswering;
  add_qa_answers(*data, windows, s.in);
  s.values = {{"exact_match", squad_exact_match(s.in)}, {"f1", squad_f1(s.in)}};
  s.values.update(squad_v2_splits(s.in));
  return s;
}

}  // namespace

TEST_CASE("question answering evaluation: logits at each window's answer answer every question", "[metrics][qa]") {
  const Scored s = score_windows([](const QaFeature& f) { return std::pair{f.start_position, f.end_position}; });
  CHECK(s.in.answers.size() == 16);  // one answer per question, not per window
  CHECK(s.in.squad_v2);
  CHECK(s.values["exact_match"] == 100.0);
  CHECK(s.values["f1"] == 100.0);
  CHECK(s.values["HasAns_total"] == 11);
  CHECK(s.values["NoAns_total"] == 5);
  CHECK(s.values["HasAns_exact"] == 100.0);
  CHECK(s.values["NoAns_exact"] == 100.0);
}

TEST_CASE("question answering evaluation: logits at CLS answer only the unanswerable questions", "[metrics][qa]") {
  const Scored s = score_windows([](const QaFeature&) { return std::pair{0, 0}; });
  for (const SquadPrediction& p : s.in.answers) CHECK(p.text.empty());
  // 5 of 16 questions have no answer: 31.25 percent, exact in binary.
  CHECK(s.values["exact_match"] == 31.25);
  CHECK(s.values["f1"] == 31.25);
  CHECK(s.values["HasAns_exact"] == 0.0);
  CHECK(s.values["NoAns_exact"] == 100.0);
}
