#include "report/report_page.h"

#include "report/class_tables.h"
#include "report/html.h"
#include "report/run_charts.h"
#include "report/svg_chart.h"
#include "util/json_input.h"
#include "util/suggest.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>

namespace runner {
namespace fs = std::filesystem;

namespace {

std::string recipe_cell(const RunHistory& r) {
  std::string out = "<code>" + xml_escape(r.env.origin.path) + "</code>";
  for (const auto& o : r.env.origin.overrides) out += "<br><code>--set " + xml_escape(o) + "</code>";
  return out;
}

std::string machine_cell(const RunHistory& r) {
  const EnvRecord& e = r.env;
  std::string out = xml_escape(e.host) + "<br>" + xml_escape(e.cpu_model);
  if (!e.gpu_model.empty() && e.gpu_model != "none") out += "<br>GPU " + xml_escape(e.gpu_model);
  return out + fmt::format("<br>device {}, {} threads", xml_escape(e.device), e.threads);
}

// Data and tokenizer files with the first 16 hex digits of their sha256 (all of it on hover).
std::string hashes_cell(const RunHistory& r) {
  std::string out;
  for (const auto& [path, h] : r.env.content_sha256) {
    out += fmt::format("{}<code title=\"{}\">{}</code> <code title=\"{}\">{}\u2026</code>",
                       out.empty() ? "" : "<br>", xml_escape(path),
                       xml_escape(fs::path(path).filename().string()), xml_escape(h),
                       xml_escape(h.substr(0, 16)));
  }
  return out;
}

std::string metrics_cell(const nlohmann::json& metrics) {
  std::string out;
  for (const auto& [k, v] : metrics.items())
    if (v.is_number() && k != "step" && k != "epoch" && k.rfind("examples", 0) != 0)
      out += fmt::format("{}{} {}", out.empty() ? "" : " \u00b7 ", xml_escape(k), metric_text(v.get<double>()));
  return out;
}

std::string best_cell(const RunHistory& r) {
  if (!r.best_value) return "";
  return fmt::format("{} = {} at step {}", xml_escape(r.best_metric), metric_text(r.best_value),
                     r.best_step ? std::to_string(*r.best_step) : "?");
}

// The settings people compare runs by, from the resolved recipe: "lr 0.0001 · batch 32 · ...".
std::string hyperparameters_cell(const RunHistory& r) {
  struct Shown {
    const char* label;
    const char* section;
    const char* key;
  };
  const Shown shown[] = {{"model", "model", "type"},         {"pretrained", "model", "pretrained"},
                         {"preset", "model", "preset"},       {"optimizer", "optimizer", "type"},
                         {"lr", "optimizer", "lr"},           {"weight decay", "optimizer", "weight_decay"},
                         {"schedule", "scheduler", "type"},   {"warm-up ratio", "scheduler", "warmup_ratio"},
                         {"batch", "data", "train_batch_size"}, {"accumulation", "train", "grad_accum"},
                         {"max length", "data", "max_length"}, {"epochs", "train", "epochs"},
                         {"max steps", "train", "max_steps"},  {"precision", "train", "precision"},
                         {"seed", "run", "seed"}};
  std::vector<std::string> parts;
  for (const Shown& s : shown) {
    const nlohmann::json section = record_object(r.resolved, s.section);
    auto it = section.find(s.key);
    if (it == section.end() || it->is_null() || (it->is_string() && it->get<std::string>().empty())) continue;
    std::string value = it->is_string() ? it->get<std::string>() : it->dump();
    parts.push_back(xml_escape(std::string(s.label) + " " + value));
  }
  return join(parts, " \u00b7 ");
}

std::string resumes_cell(const RunHistory& r) {
  if (r.resumes.empty()) return "no";
  std::vector<std::string> parts;
  for (const auto& resume : r.resumes)
    parts.push_back(xml_escape(fmt::format("at step {}{}", resume.step,
                                           resume.checkpoint.empty() ? "" : " from " + fs::path(resume.checkpoint).filename().string())));
  return join(parts, "; ");
}

HtmlTable identity_table(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels) {
  HtmlTable t{"identity", {"run"}, {}, true};
  for (size_t i = 0; i < runs.size(); ++i) t.head.push_back(labels[i]);
  auto row = [&](const std::string& name, auto cell) {
    std::vector<std::string> r{xml_escape(name)};
    for (size_t i = 0; i < runs.size(); ++i) r.push_back(cell(runs[i], i));
    t.rows.push_back(std::move(r));
  };
  row("colour", [](const RunHistory&, size_t i) { return swatch_html(static_cast<int>(i)); });
  row("directory", [](const RunHistory& r, size_t) { return "<code>" + xml_escape(r.dir) + "</code>"; });
  row("status", [](const RunHistory& r, size_t) { return xml_escape(r.status()); });
  row("started (UTC)", [](const RunHistory& r, size_t) { return xml_escape(r.started_utc()); });
  row("wall time", [](const RunHistory& r, size_t) { return duration_text(r.wall_seconds()); });
  row("steps", [](const RunHistory& r, size_t) { return fmt::format("{} / {}", r.step(), r.total_steps()); });
  row("samples / s", [](const RunHistory& r, size_t) { return metric_text(r.samples_per_s()); });
  row("recipe", [](const RunHistory& r, size_t) { return recipe_cell(r); });
  row("runner", [](const RunHistory& r, size_t) {
    return xml_escape(r.env.runner_version) + " commit <code>" + xml_escape(r.env.git_commit) +
           "</code>, LibTorch " + xml_escape(r.env.libtorch_version);
  });
  row("machine", [](const RunHistory& r, size_t) { return machine_cell(r); });
  row("data and tokenizer (sha256)", [](const RunHistory& r, size_t) { return hashes_cell(r); });
  row("hyperparameters", [](const RunHistory& r, size_t) { return hyperparameters_cell(r); });
  row("interrupted and resumed", [](const RunHistory& r, size_t) { return resumes_cell(r); });
  row("best", [](const RunHistory& r, size_t) { return best_cell(r); });
  row("metrics.jsonl", [](const RunHistory& r, size_t) {
    auto warning = r.damaged_lines_warning();
    if (!warning) return std::string("every line read");
    return xml_escape(fmt::format("line {}: {}; {}", warning->where.line, warning->message, warning->hint));
  });
  row("final evaluation", [](const RunHistory& r, size_t) {
    return metrics_cell(record_object(r.summary, "final"));
  });
  return t;
}

void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  out[prefix] = j.dump();
}

std::string charts_html(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels) {
  return chart_figure_html(run_charts(runs, labels));
}

std::string differences_html(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels) {
  auto diffs = recipe_differences(runs);
  std::string out = "<h2>Differences in the resolved recipes</h2>";
  if (diffs.empty()) return out + "<p class=\"sub\">The resolved recipes are identical.</p>";
  HtmlTable t{"recipe-differences", {"key"}, {}, true};
  t.head.insert(t.head.end(), labels.begin(), labels.end());
  for (const auto& [key, values] : diffs) {
    std::vector<std::string> row{"<code>" + xml_escape(key) + "</code>"};
    for (const auto& v : values) row.push_back("<code>" + xml_escape(v) + "</code>");
    t.rows.push_back(std::move(row));
  }
  return out + render_table(t);
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> recipe_differences(
    const std::vector<RunHistory>& runs) {
  std::vector<std::map<std::string, std::string>> flat(runs.size());
  std::set<std::string> keys;
  for (size_t i = 0; i < runs.size(); ++i) {
    flatten(runs[i].resolved, "", flat[i]);
    for (const auto& kv : flat[i]) keys.insert(kv.first);
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& key : keys) {
    if (key == "run.name") continue;  // the runs are told apart by name already: no difference of recipe
    std::vector<std::string> values;
    for (const auto& f : flat) values.push_back(f.count(key) ? f.at(key) : "(absent)");
    if (std::set<std::string>(values.begin(), values.end()).size() > 1) out.push_back({key, values});
  }
  return out;
}

std::vector<std::string> run_labels(const std::vector<RunHistory>& runs) {
  std::map<std::string, int> count;
  for (const auto& r : runs) ++count[r.name()];
  std::vector<std::string> out;
  for (const auto& r : runs)
    out.push_back(count[r.name()] > 1 ? r.name() + "/" + fs::path(r.dir).lexically_normal().filename().string()
                                      : r.name());
  return out;
}

std::string runs_report_html(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels) {
  std::string title = runs.size() == 1 ? "Run " + labels[0] : fmt::format("{} runs compared", runs.size());
  XAxis axis = runs.empty() ? XAxis::Step : runs.front().x_axis;
  std::string body = fmt::format("<h1>{}</h1><p class=\"sub\">runner report \u00b7 every chart is against "
                                 "the {}; dashed lines mark the best checkpoint</p>",
                                 xml_escape(title), xml_escape(x_axis_label(axis)));
  std::string identity = "<h2>Identity</h2>" + render_table(identity_table(runs, labels));
  std::string charts = "<h2>Training and evaluation</h2>" + charts_html(runs, labels);
  // One run's identity is a narrow column: the charts take the width beside it.
  if (runs.size() == 1) return html_page(title, body + "<div class=\"single-run\"><div>" + identity +
                                                    "</div><div>" + charts + "</div></div>" +
                                                    class_tables_html(runs, labels));
  body += identity + charts + class_tables_html(runs, labels) + differences_html(runs, labels);
  return html_page(title, body);
}

std::string runs_section_html(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels) {
  return "<h2>Runs of the points</h2>" + charts_html(runs, labels) + differences_html(runs, labels);
}

}  // namespace runner
