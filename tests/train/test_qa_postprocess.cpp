// Answers from start/end logits, identical to Transformers' examples' utils_qa.py
// postprocess_qa_predictions: tests/train/golden/qa_postprocess.json
// (scripts/golden/qa_postprocess_golden.py) holds validation windows of 60 SQuAD-format
// questions, seeded float32 logits and what utils_qa returns for v1.1 and v2.0 settings.
#include "catch.h"

#include "shared.h"

#include "train/qa_postprocess.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace runner;
using Catch::Contains;

namespace {

const nlohmann::json& golden() {
  static const nlohmann::json doc = [] {
    std::ifstream in(test::source_dir() + "/tests/train/golden/qa_postprocess.json");
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
  }();
  return doc;
}

std::vector<QaContext> examples() {
  std::vector<QaContext> out;
  for (const auto& e : golden()["examples"]) out.push_back({e["id"].get<std::string>(), e["context"].get<std::string>()});
  return out;
}

std::vector<QaWindow> windows() {
  std::vector<QaWindow> out;
  for (const auto& w : golden()["windows"]) {
    QaWindow q;
    q.example_id = w["example_id"].get<std::string>();
    for (const auto& o : w["offsets"])
      q.offsets.push_back(o.is_null() ? std::nullopt : std::optional<CharSpan>(CharSpan{o[0].get<int32_t>(), o[1].get<int32_t>()}));
    // The golden holds float32 values written as doubles: the conversion back is exact.
    for (const auto& x : w["start_logits"]) q.start_logits.push_back(static_cast<float>(x.get<double>()));
    for (const auto& x : w["end_logits"]) q.end_logits.push_back(static_cast<float>(x.get<double>()));
    out.push_back(std::move(q));
  }
  return out;
}

// numpy computes the probabilities in float32 (float64 when the "empty" entry is added) and
// the runner in double: float32's rounding (2^-24 relative) over exp, a sum of at most 21
// terms and a division stays below 1e-6 relative; logits and scores are compared exactly.
constexpr double kProbabilityTolerance = 1e-6;

}  // namespace

TEST_CASE("post-processed answers equal utils_qa's for v1.1 and v2.0", "[metrics][qa_postprocess]") {
  const auto ex = examples();
  const auto wins = windows();
  REQUIRE(wins.size() > ex.size());
  for (const auto& run : golden()["runs"]) {
    const auto& o = run["options"];
    QaPostprocessOptions options{o["version_2_with_negative"].get<bool>(), o["n_best_size"].get<int>(),
                                 o["max_answer_length"].get<int>(), o["null_score_diff_threshold"].get<double>()};
    INFO("options: " << o.dump());
    const auto answers = postprocess_qa_predictions(ex, wins, options);
    REQUIRE(answers.size() == ex.size());
    for (const QaAnswer& a : answers) {
      INFO("question " << a.id);
      CHECK(a.text == run["predictions"][a.id].get<std::string>());
      const auto& nbest = run["nbest"][a.id];
      REQUIRE(a.n_best.size() == nbest.size());
      for (size_t i = 0; i < nbest.size(); ++i) {
        CHECK(a.n_best[i].text == nbest[i]["text"].get<std::string>());
        CHECK(a.n_best[i].start_logit == static_cast<float>(nbest[i]["start_logit"].get<double>()));
        CHECK(a.n_best[i].end_logit == static_cast<float>(nbest[i]["end_logit"].get<double>()));
        CHECK(a.n_best[i].probability == Approx(nbest[i]["probability"].get<double>()).epsilon(kProbabilityTolerance));
      }
      if (options.version_2_with_negative) {
        REQUIRE(a.null_score_diff.has_value());
        CHECK(*a.null_score_diff == static_cast<float>(run["null_odds"][a.id].get<double>()));
      } else {
        CHECK(!a.null_score_diff.has_value());
      }
    }
  }
}

TEST_CASE("post-processing refuses windows it cannot place", "[metrics][qa_postprocess]") {
  QaWindow w{"q1", {std::nullopt, CharSpan{0, 3}}, {0.0f, 1.0f}, {0.0f, 1.0f}};
  CHECK(postprocess_qa_predictions({{"q1", "abc"}}, {w}, {}).at(0).text == "abc");
  CHECK_THROWS_WITH(postprocess_qa_predictions({{"q2", "abc"}}, {w}, {}), Contains("which no example has"));
  QaWindow short_logits = w;
  short_logits.end_logits.pop_back();
  CHECK_THROWS_WITH(postprocess_qa_predictions({{"q1", "abc"}}, {short_logits}, {}), Contains("2 offsets but 2 start and 1 end logits"));
  CHECK_THROWS_WITH(postprocess_qa_predictions({{"q1", "abc"}, {"q3", "x"}}, {w}, {}), Contains("question \"q3\" has no window"));
}
