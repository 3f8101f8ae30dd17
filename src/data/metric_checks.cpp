// Validate's check of the metrics a dataset computes and the one that picks the
// best checkpoint: a run would otherwise fail at its first evaluation (an hour
// in) or finish without a best checkpoint.
#include "data/dataset.h"

#include "registry/registry.h"
#include "util/json_input.h"
#include "util/suggest.h"

#include <algorithm>

namespace runner {
namespace {

std::vector<std::string> metrics_of(ProblemType p) {
  std::vector<std::string> out;
  for (const Component* c : registry().list(Kind::Metric))
    if (metric_fits(c->spec, p)) out.push_back(c->spec.name);
  return out;
}

void metrics_fit(const DatasetInfo& info, Diagnostics& out) {
  const std::string type = problem_type_name(info.problem_type);
  const std::vector<std::string> fitting = metrics_of(info.problem_type);
  for (const auto& name : info.metrics) {
    const Component* c = registry().find(Kind::Metric, name);
    if (!c) {
      std::string close = did_you_mean(name, fitting);
      out.push_back(make_error({}, "data.metrics",
                               "unknown metric \"" + name + "\" (the metrics of " + type + ": " + join(fitting) + ")",
                               close.empty() ? "use one of those, or load a plugin that registers it" : close));
    } else if (!metric_fits(c->spec, info.problem_type)) {
      out.push_back(make_error({}, "data.metrics",
                               "metric \"" + name + "\" is not defined for " + type + ", this dataset's problem type",
                               "use one of the metrics of " + type + ": " + join(fitting)));
    } else if (c->spec.most_classes > 0 && info.num_labels > c->spec.most_classes) {
      out.push_back(make_error({}, "data.metrics",
                               "metric \"" + name + "\" is defined for at most " +
                                   std::to_string(c->spec.most_classes) + " classes, but this dataset has " +
                                   std::to_string(info.num_labels) + " (data.num_labels)",
                               c->spec.past_most_classes.empty() ? "use one of: " + join(fitting)
                                                                 : "use " + c->spec.past_most_classes));
    }
  }
}

bool is_computed(const DatasetInfo& info, const std::string& metric) {
  return std::find(info.metrics.begin(), info.metrics.end(), metric) != info.metrics.end();
}

// `metrics_settable`: the dataset takes data.metrics (a GLUE task's are fixed).
void best_is_computed(const nlohmann::json& recipe, const DatasetInfo& info, bool metrics_settable,
                      Diagnostics& out) {
  std::vector<std::string> computed = {"eval.loss"};
  for (const auto& m : info.metrics)
    if (registry().find(Kind::Metric, m)) computed.push_back("eval." + m);  // metrics_fit names the others
  std::string best = record_string(record_object(recipe, "train"), "metric_for_best");
  if (best.empty()) {
    if (!info.main_metric.empty() && !is_computed(info, info.main_metric))
      out.push_back(make_error({}, "data.main_metric",
                               "main_metric = \"" + info.main_metric +
                                   "\" picks the best checkpoint, but data.metrics does not compute it (it "
                                   "computes " + join(computed) + ")",
                               "add \"" + info.main_metric + "\" to data.metrics, or set main_metric to one of "
                               "data.metrics"));
    return;
  }
  // A name without "eval." or unknown to every metric is reported by the recipe's own rules.
  if (best.rfind("eval.", 0) != 0 || best == "eval.loss") return;
  std::string bare = best.substr(5);
  if (!registry().find(Kind::Metric, bare) || is_computed(info, bare)) return;
  out.push_back(make_error({}, "train.metric_for_best",
                           "metric_for_best = \"" + best + "\" is not computed: the evaluation gives " +
                               join(computed) + ", so no checkpoint would ever be the best",
                           metrics_settable ? "add \"" + bare + "\" to data.metrics, or set metric_for_best to one "
                                                                "of those"
                                            : "set metric_for_best to one of those"));
}

}  // namespace

Diagnostics check_dataset_metrics(const nlohmann::json& recipe) {
  Diagnostics out;
  nlohmann::json data = record_object(recipe, "data");
  const Component* comp = registry().find(Kind::Dataset, record_string(data, "dataset"));
  const auto* factory = comp ? std::any_cast<DatasetFactory>(&comp->factory) : nullptr;
  if (!factory || !*factory) return out;
  std::shared_ptr<const Dataset> dataset;
  try {
    dataset = (*factory)(data);
  } catch (const InputError& e) {
    out.push_back(e.diagnostic());  // settings that disagree, such as num_labels and the labels map
    return out;
  } catch (const std::exception&) {
    return out;  // the run reports it with its place
  }
  metrics_fit(dataset->info(), out);
  best_is_computed(recipe, dataset->info(), find_option(comp->spec.options, "metrics") != nullptr, out);
  return out;
}

}  // namespace runner
