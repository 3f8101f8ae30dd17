// SQuAD exact match and F1 against the official v1.1 and v2.0 scripts, as the `evaluate`
// library's `squad` and `squad_v2` metrics run them: tests/train/golden/squad_metrics.json
// (scripts/golden/squad_metrics_golden.py) holds hand-made edge cases, cases drawn from a
// fixed seed, what the metrics return on each, and the official normalisation of every text.
#include "catch.h"

#include "shared.h"

#include "train/metrics_squad.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace runner;
using Catch::Contains;

namespace {

// Each score is 100 * (a sum of at most 60 per-question scores) / count. A per-question F1 is
// 2PR / (P + R) of two divisions of small integers: a few roundings (~1e-16 each). The sums
// add at most 60 such values in the scripts' order, so the whole path is within ~1e-13 of
// Python's double; 1e-12 is above that and far below a real difference (one question's
// exact match moves a score by more than 1).
constexpr double kTolerance = 1e-12;

const nlohmann::json& golden() {
  static const nlohmann::json doc = [] {
    std::ifstream in(test::source_dir() + "/tests/train/golden/squad_metrics.json");
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
  }();
  return doc;
}

std::vector<SquadPrediction> predictions_of(const nlohmann::json& c) {
  std::vector<SquadPrediction> out;
  for (const auto& p : c["predictions"])
    out.push_back({p["id"].get<std::string>(), p["text"].get<std::string>(), p["no_answer_probability"].get<double>()});
  return out;
}

std::vector<SquadReference> references_of(const nlohmann::json& c) {
  std::vector<SquadReference> out;
  for (const auto& r : c["references"])
    out.push_back({r["id"].get<std::string>(), r["answers"].get<std::vector<std::string>>()});
  return out;
}

void check_split(const nlohmann::json& result, const std::string& prefix, const SquadSplitScores& s) {
  CHECK(s.exact == Approx(result[prefix + "exact"].get<double>()).margin(kTolerance).epsilon(0));
  CHECK(s.f1 == Approx(result[prefix + "f1"].get<double>()).margin(kTolerance).epsilon(0));
  CHECK(s.total == result[prefix + "total"].get<long long>());
}

}  // namespace

TEST_CASE("SQuAD answer normalisation equals the official script's", "[metrics][squad]") {
  const auto& texts = golden()["normalize"];
  REQUIRE(texts.size() > 100);
  for (const auto& t : texts) {
    INFO("text: " << t["text"].get<std::string>());
    CHECK(squad_normalize_answer(t["text"].get<std::string>()) == t["normalized"].get<std::string>());
  }
}

TEST_CASE("SQuAD v1.1 exact match and F1 equal the squad metric's", "[metrics][squad]") {
  int cases = 0;
  for (const auto& c : golden()["cases"]) {
    if (c["version"].get<int>() != 1) continue;
    ++cases;
    INFO("case: " << c["name"].get<std::string>());
    const SquadV1Scores s = squad_v1_scores(predictions_of(c), references_of(c));
    CHECK(s.exact_match == Approx(c["result"]["exact_match"].get<double>()).margin(kTolerance).epsilon(0));
    CHECK(s.f1 == Approx(c["result"]["f1"].get<double>()).margin(kTolerance).epsilon(0));
  }
  CHECK(cases >= 25);
}

TEST_CASE("SQuAD v2.0 scores, HasAns/NoAns and best thresholds equal the squad_v2 metric's", "[metrics][squad]") {
  int cases = 0;
  for (const auto& c : golden()["cases"]) {
    if (c["version"].get<int>() != 2) continue;
    ++cases;
    INFO("case: " << c["name"].get<std::string>());
    const nlohmann::json& r = c["result"];
    const SquadV2Scores s = squad_v2_scores(predictions_of(c), references_of(c), c["no_answer_threshold"].get<double>());
    check_split(r, "", s.all);
    CHECK(s.has_answerable == r.contains("HasAns_exact"));
    if (s.has_answerable) check_split(r, "HasAns_", s.answerable);
    CHECK(s.has_unanswerable == r.contains("NoAns_exact"));
    if (s.has_unanswerable) check_split(r, "NoAns_", s.unanswerable);
    CHECK(s.best_exact == Approx(r["best_exact"].get<double>()).margin(kTolerance).epsilon(0));
    CHECK(s.best_exact_thresh == Approx(r["best_exact_thresh"].get<double>()).margin(kTolerance).epsilon(0));
    CHECK(s.best_f1 == Approx(r["best_f1"].get<double>()).margin(kTolerance).epsilon(0));
    CHECK(s.best_f1_thresh == Approx(r["best_f1_thresh"].get<double>()).margin(kTolerance).epsilon(0));
  }
  CHECK(cases >= 15);
}

TEST_CASE("SQuAD scores refuse ids that cannot be matched", "[metrics][squad]") {
  const std::vector<SquadReference> refs = {{"q1", {"paris"}}, {"q2", {}}};
  CHECK_THROWS_WITH(squad_v1_scores({{"q1", "x"}}, {{"q1", {"a"}}, {"q1", {"b"}}}),
                    Contains("\"q1\" is in the references twice"));
  CHECK_THROWS_WITH(squad_v1_scores({{"q1", "x"}, {"q1", "y"}}, {{"q1", {"a"}}}), Contains("\"q1\" is predicted twice"));
  CHECK_THROWS_WITH(squad_v1_scores({{"q9", "x"}}, {{"q1", {"a"}}}), Contains("which no reference question has"));
  CHECK_THROWS_WITH(squad_v1_scores({{"q1", "x"}}, refs), Contains("v1.1 question \"q2\" has no gold answer"));
  CHECK_THROWS_WITH(squad_v2_scores({{"q1", "x"}}, refs), Contains("question \"q2\" has no prediction"));
  CHECK_THROWS_WITH(squad_v1_scores({}, {}), Contains("at least one reference"));
}
