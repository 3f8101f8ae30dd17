// The metric components: registration with the problem types each fits, and
// the one place an evaluation computes them.
#include "train/metric.h"
#include "registry/builtins.h"
#include "registry/registry.h"
#include "util/diagnostic.h"
#include "util/suggest.h"

#include <set>

namespace runner {
namespace {

struct WarningSink {
  std::function<void(const std::string&)> send;
  std::set<std::string> said;  // metrics that warned: every evaluation of a run would repeat it
};

WarningSink& warning_sink() {
  static WarningSink sink;
  return sink;
}

void warn_once(const std::string& metric, const std::string& warning) {
  WarningSink& sink = warning_sink();
  if (warning.empty() || !sink.send || !sink.said.insert(metric).second) return;
  sink.send(warning);
}

std::vector<std::string> metrics_fitting(ProblemType p) {
  std::vector<std::string> out;
  for (const Component* c : registry().list(Kind::Metric))
    if (metric_fits(c->spec, p)) out.push_back(c->spec.name);
  return out;
}

const Component& metric_for(const std::string& name, ProblemType p) {
  const Component* c = registry().find(Kind::Metric, name);
  std::vector<std::string> fitting = metrics_fitting(p);
  if (!c)
    throw InputError(make_error({}, "data.metrics", "no metric is named \"" + name + "\"",
                                "the metrics of " + problem_type_name(p) + " are " + join(fitting)));
  if (!metric_fits(c->spec, p))
    throw InputError(make_error({}, "data.metrics",
                                "metric \"" + name + "\" is not defined for " + problem_type_name(p),
                                "the metrics of " + problem_type_name(p) + " are " + join(fitting)));
  return *c;
}

}  // namespace

MetricWarnings::MetricWarnings(std::function<void(const std::string&)> sink) {
  warning_sink() = {std::move(sink), {}};
}

MetricWarnings::~MetricWarnings() { warning_sink() = {}; }

nlohmann::json compute_metrics(const std::vector<std::string>& names, const MetricInput& in) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& name : names) {
    const auto* factory = std::any_cast<MetricFactory>(&metric_for(name, in.problem).factory);
    if (!factory) throw std::logic_error("metric '" + name + "' has a factory of another type");
    MetricValue v = (*factory)()(in);
    warn_once(name, v.warning);
    out[name] = v.value;
  }
  return out;
}

void register_metrics(Registry& r) {
  using P = ProblemType;
  auto add = [&r](std::string name, std::string doc, std::vector<P> fits, MetricFn fn) {
    ComponentSpec spec{Kind::Metric, std::move(name), std::move(doc), {}};
    spec.problem_types = std::move(fits);
    add_builtin(r, std::move(spec), MetricFactory([fn] { return fn; }));
  };
  add("accuracy", "Fraction of examples whose predicted class is the label", {P::SingleLabel}, accuracy);
  // One name for two F1s, as GLUE and SQuAD each report theirs as "f1".
  ComponentSpec f1{Kind::Metric, "f1",
                   "F1 score of class 1 (the positive class), as GLUE reports for MRPC; for question answering "
                   "the official SQuAD F1 (percent)",
                   {}};
  f1.problem_types = {P::SingleLabel, P::QuestionAnswering};
  f1.most_classes = 2;
  f1.past_most_classes = "macro_f1, micro_f1 or weighted_f1";
  add_builtin(r, std::move(f1), MetricFactory([] {
                return MetricFn([](const MetricInput& in) {
                  return in.problem == P::QuestionAnswering ? squad_f1(in) : f1_positive(in);
                });
              }));
  add("exact_match", "Questions whose answer is a gold answer after SQuAD's normalisation (percent)",
      {P::QuestionAnswering}, squad_exact_match);
  add("macro_f1", "Mean F1 over the classes (multi-label: over the labels); an empty one counts 0",
      {P::SingleLabel, P::MultiLabel}, macro_f1);
  add("micro_f1", "F1 of all decisions pooled (single-label: equal to accuracy)", {P::SingleLabel, P::MultiLabel},
      micro_f1);
  add("weighted_f1", "Mean F1 over the classes, each weighted by its true examples", {P::SingleLabel},
      weighted_f1);
  add("mcc", "Matthews correlation coefficient (Gorodkin's R_K for more than two classes)", {P::SingleLabel},
      matthews_corr);
  add("subset_accuracy", "Fraction of examples with every label decided right (exact match)", {P::MultiLabel},
      subset_accuracy);
  add("pearson", "Pearson correlation of predicted and true values (0 when either is constant)",
      {P::Regression}, pearson);
  add("spearman", "Spearman rank correlation, ties at their mean rank (0 when either is constant)",
      {P::Regression}, spearman);
  add("mse", "Mean squared error of the predicted values", {P::Regression}, mean_squared_error);
  add("entity_f1", "Entity-level F1 over every entity type (seqeval's micro F1, its default mode)",
      {P::TokenClassification}, entity_f1);
  add("entity_precision", "Predicted entities that are true ones, over every type (seqeval)",
      {P::TokenClassification}, entity_precision);
  add("entity_recall", "True entities that are predicted, over every type (seqeval)", {P::TokenClassification},
      entity_recall);
  add("token_accuracy", "Labelled tokens whose predicted tag is the true one (seqeval's accuracy_score)",
      {P::TokenClassification}, token_accuracy);
}

}  // namespace runner
