// Entity-level NER metrics against seqeval 1.2.2: tests/train/golden/seqeval.json holds tag
// sentences (hand-made ones and ones drawn from a fixed seed) and what seqeval gives on them
// in lenient and strict mode (scripts/golden/seqeval_golden.py): the entities it finds, micro
// precision, recall and F1, classification_report's per-type rows and accuracy_score.
#include "catch.h"

#include "shared.h"

#include "train/metric.h"
#include "train/metrics_entities.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace runner;

// Entities print as (type, first, last) in a failed comparison.
namespace Catch {
template <>
struct StringMaker<Entity> {
  static std::string convert(const Entity& e) {
    return "(" + e.type + ", " + std::to_string(e.first) + ", " + std::to_string(e.last) + ")";
  }
};
}  // namespace Catch

namespace {

// Every value is a ratio of integer counts (entities or tokens): precision, recall and
// accuracy are one division of exactly represented integers, correctly rounded on both sides
// (within 1 ulp of each other, in fact equal). F1 is 2PR / (P + R) of those, computed here with
// numpy's operations in numpy's order, so it is the same double up to a fused multiply-add a
// compiler may choose (a few ulp, ~1e-16). 1e-12 is far above that and far below any real
// difference: one entity more or less moves a value by more than 1e-2 in these cases.
constexpr double kTolerance = 1e-12;

const nlohmann::json& golden() {
  static const nlohmann::json doc = [] {
    std::ifstream in(test::source_dir() + "/tests/train/golden/seqeval.json");
    REQUIRE(in);
    return nlohmann::json::parse(in);
  }();
  return doc;
}

TagSentences sentences(const nlohmann::json& j) { return j.get<TagSentences>(); }

// seqeval's lenient entities are [type, first, last] in the sentences laid end to end with one
// separator after each; its strict ones are [sentence, type, start, end) within the sentence,
// which the runner reports in the lenient offsets.
std::vector<Entity> lenient_golden(const nlohmann::json& rows) {
  std::vector<Entity> out;
  for (const auto& r : rows) out.push_back({r[0].get<std::string>(), r[1].get<size_t>(), r[2].get<size_t>()});
  return out;
}

std::vector<Entity> strict_golden(const nlohmann::json& rows, const TagSentences& sents) {
  std::vector<size_t> offset{0};
  for (const auto& s : sents) offset.push_back(offset.back() + s.size() + 1);
  std::vector<Entity> out;
  for (const auto& r : rows) {
    size_t at = offset[r[0].get<size_t>()];
    out.push_back({r[1].get<std::string>(), at + r[2].get<size_t>(), at + r[3].get<size_t>() - 1});
  }
  return out;
}

void check_value(double got, const nlohmann::json& want) {
  CHECK(got == Approx(want.get<double>()).margin(kTolerance).epsilon(0));
}

void check_scores(const EntityReport& got, const nlohmann::json& want) {
  check_value(got.micro.precision, want.at("precision"));
  check_value(got.micro.recall, want.at("recall"));
  check_value(got.micro.f1, want.at("f1"));
  const auto& rows = want.at("per_type");
  REQUIRE(got.per_type.size() == rows.size());
  size_t i = 0;
  for (const auto& [type, row] : rows.items()) {  // nlohmann::json keeps keys sorted by bytes
    const EntityTypeScores& t = got.per_type[i++];
    INFO("type " << type);
    CHECK(t.type == type);
    check_value(t.scores.precision, row.at("precision"));
    check_value(t.scores.recall, row.at("recall"));
    check_value(t.scores.f1, row.at("f1"));
    CHECK(t.scores.support == row.at("support").get<long long>());
  }
}

// One mode on one case: the entities of each side, then the scores.
void check_evaluation(const nlohmann::json& c, const nlohmann::json& want, const EntityOptions& opt,
                      bool strict) {
  TagSentences truth = sentences(c.at("true")), pred = sentences(c.at("pred"));
  if (want.contains("error")) {
    INFO("seqeval refused it: " << want.at("error").get<std::string>());
    CHECK_THROWS_AS(entity_report(truth, pred, opt), InputError);
    return;
  }
  auto expect = [&](const char* key, const TagSentences& s) {
    return strict ? strict_golden(want.at(key), s) : lenient_golden(want.at(key));
  };
  CHECK(extract_entities(truth, opt) == expect("entities_true", truth));
  CHECK(extract_entities(pred, opt) == expect("entities_pred", pred));
  EntityReport report = entity_report(truth, pred, opt);
  check_scores(report, want);
  // seqeval divides by zero on no token at all; the runner defines that accuracy as 0.
  const auto& acc = c.at("accuracy");
  check_value(report.accuracy, acc.is_null() ? nlohmann::json(0.0) : acc);
}

}  // namespace

TEST_CASE("entity metrics equal seqeval's in lenient and strict mode on every golden case", "[metrics][entities]") {
  int cases = 0, strict_runs = 0, refusals = 0;
  for (const auto& [name, c] : golden().at("cases").items()) {
    bool suffix = c.at("suffix").get<bool>();
    {
      INFO("case " << name << ", lenient");
      check_evaluation(c, c.at("lenient"), {EntityMode::Lenient, TagScheme::IOB2, suffix}, false);
    }
    for (const auto& [scheme, want] : c.at("strict").items()) {
      INFO("case " << name << ", strict " << scheme);
      check_evaluation(c, want, {EntityMode::Strict, parse_scheme(scheme), suffix}, true);
      ++strict_runs;
      refusals += want.contains("error");
    }
    ++cases;
  }
  // Every case was read: 26 hand-made and 20 random ones, each in lenient mode and in strict
  // mode for each scheme it lists, seqeval refusing 8 of the strict runs.
  CHECK(cases == 46);
  CHECK(strict_runs == 63);
  CHECK(refusals == 8);
}

TEST_CASE("an I- without a B- starts an entity in lenient mode and none in strict IOB2", "[metrics][entities]") {
  TagSentences tags{{"I-PER", "I-PER", "O", "B-LOC"}};
  std::vector<Entity> lenient = extract_entities(tags, {});
  CHECK(lenient == std::vector<Entity>{{"PER", 0, 1}, {"LOC", 3, 3}});
  std::vector<Entity> strict = extract_entities(tags, {EntityMode::Strict, TagScheme::IOB2});
  CHECK(strict == std::vector<Entity>{{"LOC", 3, 3}});
}

TEST_CASE("the scheme of a label list is the one seqeval's auto_detect names", "[metrics][entities]") {
  int named = 0;
  for (const auto& [name, d] : golden().at("detect").items()) {
    if (d.at("seqeval").is_null()) continue;
    INFO("labels " << name);
    auto labels = d.at("labels").get<std::vector<std::string>>();
    CHECK(scheme_name(detect_scheme(labels, d.at("suffix").get<bool>())) == d.at("seqeval").get<std::string>());
    ++named;
  }
  CHECK(named == 11);
}

TEST_CASE("a label list that fits one scheme is read where auto_detect refuses it", "[metrics][entities]") {
  const auto& detect = golden().at("detect");
  for (const char* refused : {"outside_and_single", "outside_and_inside"}) CHECK(detect.at(refused).at("seqeval").is_null());
  CHECK(detect_scheme({"O", "S-PER"}) == TagScheme::IOBES);
  CHECK(detect_scheme({"O", "I-PER", "I-LOC"}) == TagScheme::IOB2);
  CHECK(detect_scheme({"O"}) == TagScheme::IOB2);  // no entity tag: every scheme reads it alike
  CHECK(detect_scheme({"O", "PER-E", "PER-I"}, true) == TagScheme::IOE2);
}

TEST_CASE("a label list that mixes two schemes is refused, naming the tags of each", "[metrics][entities]") {
  CHECK_THROWS_AS(detect_scheme({"O", "B-PER", "E-PER", "L-LOC"}), InputError);
  CHECK_THROWS_WITH(detect_scheme({"O", "B-PER", "E-PER", "L-LOC"}),
                    Catch::Contains("'L-LOC'") && Catch::Contains("'E-PER'") && !Catch::Contains("'B-PER'"));
  CHECK_THROWS_WITH(detect_scheme({"O", "S-PER", "U-LOC", "U-ORG"}),
                    Catch::Contains("'U-LOC', 'U-ORG'") && Catch::Contains("'S-PER'"));
  CHECK_THROWS_WITH(detect_scheme({"PER-E", "LOC-L"}, true), Catch::Contains("'LOC-L'") && Catch::Contains("'PER-E'"));
}

TEST_CASE("a label without a scheme prefix, or an empty one, is refused by name", "[metrics][entities]") {
  CHECK_THROWS_AS(detect_scheme({"O", "PER"}), InputError);
  CHECK_THROWS_WITH(detect_scheme({"O", "PER"}), Catch::Contains("'PER'"));
  CHECK_THROWS_AS(detect_scheme({"O", ""}), InputError);
  CHECK_THROWS_WITH(detect_scheme({"B-PER"}, true), Catch::Contains("'B-PER'"));  // its last letter is R
}

TEST_CASE("entity metrics refuse sides of different shapes and empty tags", "[metrics][entities]") {
  CHECK_THROWS_AS(entity_report({{"O"}, {"O"}}, {{"O"}}), InputError);
  CHECK_THROWS_AS(entity_report({{"O", "B-PER"}}, {{"O"}}), InputError);
  CHECK_THROWS_AS(token_accuracy({{"O", "B-PER"}}, {{"O"}}), InputError);
  CHECK_THROWS_AS(entity_report({{""}}, {{"O"}}), InputError);
  CHECK_THROWS_AS(entity_report({{""}}, {{"O"}}, {EntityMode::Strict, TagScheme::IOB2}), InputError);
}

TEST_CASE("scheme names read as seqeval's classes, with BIO and BIOES as aliases", "[metrics][entities]") {
  CHECK(parse_scheme("BIO") == TagScheme::IOB2);
  CHECK(parse_scheme("BIOES") == TagScheme::IOBES);
  CHECK(parse_scheme("IOE1") == TagScheme::IOE1);
  CHECK_THROWS_WITH(parse_scheme("bio"), Catch::Contains("'bio'") && Catch::Contains("BILOU"));
}

TEST_CASE("the token classification metrics read tag ids sentence by sentence", "[metrics][entities]") {
  // Tags O, B-PER, I-PER, B-LOC. Truth: [B-PER I-PER O] [B-LOC]; predicted: [B-PER I-PER O] [O].
  // Entities: 2 true, 1 predicted, 1 right: precision 1, recall 1/2, F1 2/3; tokens: 3 of 4 right.
  runner::MetricInput in;
  in.problem = runner::ProblemType::TokenClassification;
  in.tag_names = {"O", "B-PER", "I-PER", "B-LOC"};
  const long long end = runner::kSentenceEnd;
  in.labels = {1, 2, 0, end, 3, end};
  in.predictions = {1, 2, 0, end, 0, end};
  nlohmann::json m = runner::compute_metrics({"entity_precision", "entity_recall", "entity_f1", "token_accuracy"}, in);
  CHECK(m["entity_precision"].get<double>() == 1.0);
  CHECK(m["entity_recall"].get<double>() == 0.5);
  CHECK(m["entity_f1"].get<double>() == Approx(2.0 / 3.0).epsilon(1e-15));  // one division: 2PR/(P+R) rounding
  CHECK(m["token_accuracy"].get<double>() == 0.75);
  nlohmann::json per = runner::per_entity_details(in);
  CHECK(per["names"] == nlohmann::json{"LOC", "PER"});
  CHECK(per["f1"] == nlohmann::json{0.0, 1.0});
  CHECK(per["support"] == nlohmann::json{1, 1});
  CHECK_THROWS(runner::compute_metrics({"accuracy"}, in));  // a sequence metric does not fit tokens
}
