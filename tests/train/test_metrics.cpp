// The metric components against scikit-learn and SciPy: tests/train/golden/metrics.json
// holds fixed inputs and the values those libraries give on them
// (scripts/golden/metrics_golden.py), with ties for Spearman, classes that are
// never predicted or never true for the F1 averages, and a constant prediction.
#include "catch.h"

#include "shared.h"

#include "registry/registry.h"
#include "train/metric.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace runner;

namespace {

// Every value is a handful of sums of small counts or of 10 numbers, then a
// division and a square root: in double precision each side is within about
// 30 roundings of 2^-53 (3.3e-15) of the exact value, whatever order its sums
// run in. 1e-13 is that bound with a factor of 15 to spare, and far below any
// real difference (the nearest wrong definition moves a value by 1e-2).
constexpr double kTolerance = 1e-13;

nlohmann::json golden() {
  std::ifstream in(test::source_dir() + "/tests/train/golden/metrics.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

std::vector<long long> flat(const nlohmann::json& rows) {
  std::vector<long long> out;
  for (const auto& row : rows)
    for (const auto& v : row) out.push_back(v.get<long long>());
  return out;
}

MetricInput input_of(const std::string& kind, const nlohmann::json& c) {
  MetricInput in;
  if (kind == "single_label") {
    in.labels = c.at("labels").get<std::vector<long long>>();
    in.predictions = c.at("predictions").get<std::vector<long long>>();
  } else if (kind == "multi_label") {
    in.problem = ProblemType::MultiLabel;
    in.labels = flat(c.at("labels"));
    in.predictions = flat(c.at("predictions"));
    in.label_count = static_cast<long long>(c.at("labels").at(0).size());
  } else {
    in.problem = ProblemType::Regression;
    in.targets = c.at("targets").get<std::vector<double>>();
    in.scores = c.at("scores").get<std::vector<double>>();
  }
  return in;
}

}  // namespace

TEST_CASE("every metric equals scikit-learn's or SciPy's value on the golden inputs", "[metrics]") {
  nlohmann::json g = golden();
  int checked = 0;
  for (const char* kind : {"single_label", "multi_label", "regression"}) {
    for (const auto& [name, c] : g.at(kind).items()) {
      MetricInput in = input_of(kind, c);
      for (const auto& [metric, want] : c.at("expected").items()) {
        INFO(kind << " case " << name << ", metric " << metric);
        nlohmann::json got = compute_metrics({metric}, in);
        CHECK(got.at(metric).get<double>() == Approx(want.get<double>()).margin(kTolerance).epsilon(0));
        ++checked;
      }
    }
  }
  CHECK(checked == 3 * 5 + 1 + 3 + 3 * 3);  // every case's every metric was read
}

TEST_CASE("a correlation of a constant prediction is 0 and says so once", "[metrics]") {
  MetricInput in = input_of("regression", golden().at("regression").at("constant_prediction"));
  std::vector<std::string> said;
  {
    MetricWarnings warnings([&said](const std::string& m) { said.push_back(m); });
    for (int evaluation = 0; evaluation < 3; ++evaluation) {
      nlohmann::json r = compute_metrics({"pearson", "spearman"}, in);
      CHECK(r.at("pearson") == 0.0);
      CHECK(r.at("spearman") == 0.0);
    }
  }
  REQUIRE(said.size() == 2);  // one per metric, not one per evaluation
  CHECK_THAT(said[0], Catch::Contains("pearson") && Catch::Contains("every prediction") &&
                          Catch::Contains("reported as 0"));
  CHECK_THAT(said[1], Catch::Contains("spearman"));
  // Out of the scope nothing is sent anywhere, and the value is the same.
  CHECK(compute_metrics({"pearson"}, in).at("pearson") == 0.0);
}

TEST_CASE("spearman ranks ties at their mean rank", "[metrics]") {
  // By hand: values 5, 1, 5, 3 rank 3.5, 1, 3.5, 2; the same ranks from another
  // series with the same ties give a correlation of exactly 1.
  MetricInput in;
  in.problem = ProblemType::Regression;
  in.scores = {5, 1, 5, 3};
  in.targets = {50, 10, 50, 20};
  CHECK(compute_metrics({"spearman"}, in).at("spearman") == Approx(1.0).margin(kTolerance));
  in.targets = {50, 10, 40, 20};  // the tie broken: ranks 4, 1, 3, 2
  // r of (3.5, 1, 3.5, 2) and (4, 1, 3, 2): means 2.5; sxy = 4.5, sxx = 4.5, syy = 5,
  // so r = 4.5 / sqrt(22.5) = sqrt(0.9).
  CHECK(compute_metrics({"spearman"}, in).at("spearman") == Approx(std::sqrt(0.9)).margin(kTolerance));
}

TEST_CASE("f1 of class 1 refuses more than two classes and names the averages", "[metrics]") {
  MetricInput in = input_of("single_label", golden().at("single_label").at("three_classes"));
  try {
    compute_metrics({"f1"}, in);
    FAIL("f1 of three classes was computed");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("class 2") && Catch::Contains("macro_f1, micro_f1 or weighted_f1"));
  }
}

TEST_CASE("an unknown metric or one of another problem type is refused with the ones that fit",
          "[metrics]") {
  MetricInput in;
  in.predictions = {1, 0};
  in.labels = {1, 1};
  try {
    compute_metrics({"pearson"}, in);
    FAIL("pearson of class ids was computed");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("\"pearson\" is not defined for single_label_classification") &&
                             Catch::Contains("macro_f1"));
  }
  try {
    compute_metrics({"macro_f2"}, in);
    FAIL("an unknown metric was computed");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("no metric is named \"macro_f2\"") && Catch::Contains("weighted_f1"));
  }
}

TEST_CASE("each built-in metric declares the problem types it fits", "[metrics]") {
  auto fitting = [](ProblemType p) {
    std::vector<std::string> out;
    for (const Component* c : registry().list(Kind::Metric))
      if (c->origin == "built-in" && metric_fits(c->spec, p)) out.push_back(c->spec.name);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(fitting(ProblemType::SingleLabel) == V{"accuracy", "f1", "macro_f1", "mcc", "micro_f1", "weighted_f1"});
  CHECK(fitting(ProblemType::MultiLabel) == V{"macro_f1", "micro_f1", "subset_accuracy"});
  CHECK(fitting(ProblemType::Regression) == V{"mse", "pearson", "spearman"});
  CHECK(registry().find(Kind::Metric, "f1")->spec.most_classes == 2);
}

TEST_CASE("per-class precision, recall, F1, support and the confusion matrix equal scikit-learn's",
          "[metrics]") {
  nlohmann::json g = golden();
  for (const auto& [name, c] : g.at("single_label").items()) {
    INFO("case " << name);
    nlohmann::json got = per_class_details(input_of("single_label", c));
    const nlohmann::json& want = c.at("per_class");
    CHECK(got.at("classes") == want.at("classes"));
    CHECK(got.at("support") == want.at("support"));
    CHECK(got.at("confusion") == want.at("confusion"));
    for (const char* column : {"precision", "recall", "f1"}) {
      REQUIRE(got.at(column).size() == want.at(column).size());
      for (size_t i = 0; i < want.at(column).size(); ++i)
        CHECK(got.at(column)[i].get<double>() == Approx(want.at(column)[i].get<double>()).margin(kTolerance));
    }
  }
}

TEST_CASE("per-class details are left out past the classes a record can show", "[metrics]") {
  MetricInput in;
  for (long long k = 0; k <= static_cast<long long>(kMaxClassesDetailed); ++k) {
    in.labels.push_back(k);
    in.predictions.push_back(k);
  }
  CHECK(per_class_details(in).is_null());
  in.labels.pop_back();
  in.predictions.pop_back();
  CHECK(per_class_details(in).at("classes").size() == kMaxClassesDetailed);
}
