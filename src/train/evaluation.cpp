#include "train/evaluation.h"

#include "data/token_label_alignment.h"
#include "model/host_read.h"
#include "train/qa_evaluation.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace runner {

EvalTally::EvalTally(const EvalSet& set) : threshold(set.threshold), label_names(set.label_names), qa(set.qa) {
  in.problem = set.problem;
  if (in.problem == ProblemType::TokenClassification) in.tag_names = set.label_names;
}

namespace {

std::vector<double> host_doubles(const torch::Tensor& t) {
  torch::Tensor h = read_to_host(t.to(torch::kFloat64).contiguous());
  return std::vector<double>(h.data_ptr<double>(), h.data_ptr<double>() + h.numel());
}

// sigmoid(x) > t exactly when x > log(t / (1 - t)): decided on the logits, so
// that no rounding of the sigmoid near the threshold flips a decision.
void add_decisions(const torch::Tensor& logits, const torch::Tensor& targets, double threshold, MetricInput& in) {
  const double cut = std::log(threshold / (1.0 - threshold));
  torch::Tensor pred = read_to_host((logits.to(torch::kFloat64) > cut).to(torch::kInt64).contiguous());
  torch::Tensor gold = read_to_host((targets > 0.5).to(torch::kInt64).contiguous());
  in.label_count = logits.size(-1);
  in.predictions.insert(in.predictions.end(), pred.data_ptr<int64_t>(), pred.data_ptr<int64_t>() + pred.numel());
  in.labels.insert(in.labels.end(), gold.data_ptr<int64_t>(), gold.data_ptr<int64_t>() + gold.numel());
}

// Token classification: each row's labelled tokens (label not -100), its
// predicted and true tag ids, the row closed by kSentenceEnd (train/metric.h).
void add_tagged_rows(const torch::Tensor& logits, const torch::Tensor& labels, MetricInput& in) {
  torch::Tensor pred = read_to_host(logits.argmax(-1).to(torch::kInt64).contiguous());
  torch::Tensor gold = read_to_host(labels.to(torch::kInt64).contiguous());
  const int64_t rows = gold.size(0), length = gold.size(1);
  const int64_t* p = pred.data_ptr<int64_t>();
  const int64_t* g = gold.data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t = r * length; t < (r + 1) * length; ++t) {
      if (g[t] == kIgnoredLabel) continue;
      in.predictions.push_back(p[t]);
      in.labels.push_back(g[t]);
    }
    in.predictions.push_back(kSentenceEnd);
    in.labels.push_back(kSentenceEnd);
  }
}

// The table's class names, read by `runner evaluate` and the report; an id the
// dataset names no class for is shown as its number.
nlohmann::json with_names(nlohmann::json details, const nlohmann::json& ids, const std::vector<std::string>& names) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& id : ids) {
    auto i = id.get<long long>();
    out.push_back(i >= 0 && static_cast<size_t>(i) < names.size() ? names[static_cast<size_t>(i)] : std::to_string(i));
  }
  details["names"] = std::move(out);
  return details;
}

// Each example's row of `t` ([B, ...] on the host, float64), as a number or a list.
nlohmann::json row_of(const torch::Tensor& t, int64_t i) {
  torch::Tensor r = t[i].reshape({-1});
  std::vector<double> v(r.data_ptr<double>(), r.data_ptr<double>() + r.numel());
  if (t.dim() == 1) return v.front();
  return v;
}

// A sentence's record: its labelled tokens' true and predicted tag ids.
void add_tagged_records(const ModelOutput& out, const TrainBatch& b, std::vector<nlohmann::json>& records) {
  MetricInput rows;
  add_tagged_rows(out.logits, b.tensors.labels, rows);
  size_t row = 0;
  nlohmann::json r = {{"label", nlohmann::json::array()}, {"prediction", nlohmann::json::array()}};
  for (size_t i = 0; i < rows.labels.size(); ++i) {
    if (rows.labels[i] != kSentenceEnd) {
      r["label"].push_back(rows.labels[i]);
      r["prediction"].push_back(rows.predictions[i]);
      continue;
    }
    r["id"] = row < b.example_ids.size() ? nlohmann::json(b.example_ids[row]) : nlohmann::json(row);
    ++row;
    records.push_back(std::exchange(r, {{"label", nlohmann::json::array()}, {"prediction", nlohmann::json::array()}}));
  }
}

// Each real row's start and end logits, as the window that comes next in the set's order.
void add_question_windows(const torch::Tensor& logits, long long rows, const QaEvalData& qa,
                          std::vector<QaWindow>& windows) {
  torch::Tensor host = read_to_host(logits.to(torch::kFloat32).contiguous());
  const int64_t length = host.size(1);
  for (long long r = 0; r < rows; ++r)
    windows.push_back(qa_window_with_logits(qa, windows.size(), host.data_ptr<float>() + r * length * 2, length));
}

void add_records(const ModelOutput& out, const TrainBatch& b, ProblemType problem, std::vector<nlohmann::json>& records) {
  if (problem == ProblemType::TokenClassification) return add_tagged_records(out, b, records);
  if (problem == ProblemType::QuestionAnswering) return;  // answers exist once every window is in
  torch::Tensor logits = read_to_host(out.logits.to(torch::kFloat64).contiguous());
  torch::Tensor labels = read_to_host(b.tensors.labels.to(torch::kFloat64).contiguous());
  for (int64_t i = 0; i < logits.size(0); ++i) {
    nlohmann::json r;
    r["id"] = static_cast<size_t>(i) < b.example_ids.size() ? nlohmann::json(b.example_ids[i]) : nlohmann::json(i);
    r["label"] = problem == ProblemType::Regression ? row_of(labels, i)
                 : problem == ProblemType::MultiLabel ? row_of(labels, i)
                                                      : nlohmann::json(static_cast<long long>(labels[i].item<double>()));
    r["logits"] = row_of(logits, i);
    if (problem == ProblemType::SingleLabel) r["prediction"] = logits[i].argmax().item<int64_t>();
    records.push_back(std::move(r));
  }
}

}  // namespace

void EvalTally::add(const ModelOutput& out, const TrainBatch& b) {
  loss_sum += read_double(out.loss) * static_cast<double>(b.examples);
  examples += b.examples;
  if (keep_records) add_records(out, b, in.problem, records);
  if (in.problem == ProblemType::Regression) {
    for (double v : host_doubles(out.logits.reshape({-1}))) in.scores.push_back(v);
    for (double v : host_doubles(b.tensors.labels.reshape({-1}))) in.targets.push_back(v);
    return;
  }
  if (in.problem == ProblemType::MultiLabel) return add_decisions(out.logits, b.tensors.labels, threshold, in);
  if (in.problem == ProblemType::TokenClassification) return add_tagged_rows(out.logits, b.tensors.labels, in);
  if (in.problem == ProblemType::QuestionAnswering) {
    if (!qa) throw std::logic_error("a question answering evaluation without its questions");
    return add_question_windows(out.logits, b.examples, *qa, windows);
  }
  torch::Tensor pred = read_to_host(out.logits.argmax(-1).to(torch::kInt64));
  torch::Tensor gold = read_to_host(b.tensors.labels.to(torch::kInt64));
  in.predictions.insert(in.predictions.end(), pred.data_ptr<int64_t>(),
                        pred.data_ptr<int64_t>() + pred.numel());
  in.labels.insert(in.labels.end(), gold.data_ptr<int64_t>(), gold.data_ptr<int64_t>() + gold.numel());
}

nlohmann::json EvalTally::results(const std::vector<std::string>& metrics) const {
  nlohmann::json r = {{"loss", examples ? loss_sum / static_cast<double>(examples) : 0.0},
                      {"examples", examples}};
  if (in.problem == ProblemType::QuestionAnswering && qa) {
    MetricInput answered = in;
    add_qa_answers(*qa, windows, answered);
    r.update(compute_metrics(metrics, answered));
    r.update(squad_v2_splits(answered));
    return r;
  }
  r.update(compute_metrics(metrics, in));
  // Under one key, so that readers of the numeric keys (report, compare, loggers) pass it by.
  if (in.problem == ProblemType::SingleLabel) {
    nlohmann::json details = per_class_details(in);
    if (!details.is_null()) {
      const nlohmann::json ids = details["classes"];
      r["per_class"] = with_names(std::move(details), ids, label_names);
    }
  }
  if (in.problem == ProblemType::TokenClassification) r["per_entity"] = per_entity_details(in);
  if (in.problem == ProblemType::MultiLabel && examples > 0) {
    nlohmann::json details = per_label_details(in);
    nlohmann::json ids = nlohmann::json::array();
    for (size_t i = 0; !details.is_null() && i < details["f1"].size(); ++i) ids.push_back(i);
    if (!details.is_null()) r["per_label"] = with_names(std::move(details), ids, label_names);
  }
  return r;
}

void add_companion_results(nlohmann::json& into, const nlohmann::json& results, const std::string& suffix) {
  for (const auto& [key, value] : results.items()) into[key + suffix] = value;
}

}  // namespace runner
