// A report of runs and of a sweep whose every name field
// (run name, metric names, recipe values, split names, the machine, the
// data files, sweep keys and points) holds markup. The page must hold only the
// elements and attributes the runner writes: every '<' that came from the data
// is escaped, every attribute value is quoted and free of markup, and every id
// is a safe, unique one.
#include "catch.h"

#include "report/report_command.h"
#include "report_fixtures.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace runner;
using runner::test::FakeRun;

namespace {

// The issue's own payload (a metric name that closed the chart group's id),
// one in single quotes, and one that would open a comment or a CDATA section.
const std::string kIdBreaker = "x\"><img src=x onerror=alert(3)>";
const std::string kQuoteBreaker = "q' onmouseover='alert(4)";
const std::string kOther = "<!--<![CDATA[<script>alert(5)</script>";

const std::set<std::string> kElements = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p",
                                         "table", "thead", "tbody", "tr", "th", "td", "code", "br", "span",
                                         "div", "svg", "text", "g", "line", "path", "circle", "rect"};
const std::set<std::string> kAttributes = {
    "lang", "charset", "name", "content", "id", "class", "xmlns", "viewBox", "role", "aria-label", "x",
    "y", "x1", "x2", "y1", "y2", "d", "cx", "cy", "r", "transform", "text-anchor", "width", "height",
    "title", "data-series", "data-label", "data-points", "data-marker", "data-step"};

struct Markup {
  std::vector<std::string> problems;  // what the runner did not write
  std::vector<std::string> ids;
};

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; }

// Reads the attributes of a tag from `at` (just past its name) to its '>'.
size_t scan_attributes(const std::string& html, size_t at, Markup& m) {
  for (;;) {
    while (at < html.size() && std::isspace(static_cast<unsigned char>(html[at]))) ++at;
    if (at >= html.size()) return at;
    if (html[at] == '>') return at + 1;
    if (html.compare(at, 2, "/>") == 0) return at + 2;
    size_t start = at;
    while (at < html.size() && name_char(html[at])) ++at;
    std::string name = html.substr(start, at - start);
    if (name.empty() || !kAttributes.count(name)) m.problems.push_back("attribute '" + html.substr(start, 30) + "'");
    if (name.empty()) return html.find('>', at);
    if (html[at] != '=') continue;
    if (html[at + 1] != '"') {
      m.problems.push_back("unquoted value of " + name);
      return html.find('>', at);
    }
    size_t end = html.find('"', at + 2);
    std::string value = html.substr(at + 2, end - at - 2);
    if (value.find('<') != std::string::npos || value.find('>') != std::string::npos)
      m.problems.push_back("markup in the value of " + name + ": " + value);
    if (name == "id") m.ids.push_back(value);
    at = end + 1;
  }
}

// Every tag of the page, checked against what the report writes.
Markup scan(const std::string& html) {
  Markup m;
  size_t at = 0;
  while ((at = html.find('<', at)) != std::string::npos) {
    if (html.compare(at, 15, "<!DOCTYPE html>") == 0) {
      at += 15;
      continue;
    }
    size_t start = at + 1 + (html[at + 1] == '/');
    size_t end = start;
    while (end < html.size() && name_char(html[end])) ++end;
    std::string name = html.substr(start, end - start);
    if (!kElements.count(name)) m.problems.push_back("element '" + html.substr(at, 40) + "'");
    at = html[at + 1] == '/' ? html.find('>', end) + 1 : scan_attributes(html, end, m);
    if (name == "style" && html[start - 1] != '/') at = html.find("</style>", at);
  }
  return m;
}

void check_only_runner_markup(const std::string& html) {
  Markup m = scan(html);
  for (const auto& p : m.problems) {
    INFO(p);
    CHECK(false);
  }
  std::set<std::string> seen;
  for (const auto& id : m.ids) {
    INFO(id);
    CHECK(std::regex_match(id, std::regex("[A-Za-z0-9_-]+")));
    CHECK(seen.insert(id).second);  // unique in the page
  }
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<!--") == std::string::npos);
  CHECK(html.find("' onmouseover='") == std::string::npos);
  // The data reached the page, escaped.
  CHECK(html.find("x&quot;&gt;&lt;img src=x onerror=alert(3)&gt;") != std::string::npos);
  CHECK(html.find("q&#39; onmouseover=&#39;alert(4)") != std::string::npos);
}

// A run whose records hold `mark` in every name field a record has.
std::string marked_run(const std::string& parent, const std::string& folder, const std::string& mark) {
  FakeRun spec;
  spec.name = kIdBreaker;
  std::string dir = runner::test::make_fake_run(parent, folder, spec);
  nlohmann::json env = {{"started_utc", mark}, {"git_commit", mark}, {"host", mark}, {"cpu_model", mark},
                        {"gpu_model", mark}, {"runner_version", mark}, {"device", mark}, {"threads", mark},
                        {"libtorch_version", mark}, {"content_sha256", {{"/data/" + mark + "/train.tsv", mark}}},
                        {"recipe", {{"path", "/recipes/" + mark}, {"overrides", {"run.name=" + mark}}}}};
  nlohmann::json resolved = {{"run", {{"name", kIdBreaker}, {mark, mark}}},
                             {"data", {{"splits", {{"train", mark + "train"}, {mark, "dev"}}}}},
                             {"train", {{"metric_for_best", "eval." + kIdBreaker}}}};
  nlohmann::json summary = {{"status", mark}, {"global_step", 6}, {"total_steps", 6},
                            {"best", {{"value", 0.5}, {"step", 3}, {"metric", "eval." + kIdBreaker}}},
                            {"final", {{kIdBreaker, 0.5}, {kQuoteBreaker, 0.4}}}};
  std::string events;
  for (int step : {3, 6})
    events += nlohmann::json({{"event", "eval"}, {"step", step}, {kIdBreaker, 0.5}, {kQuoteBreaker, 0.4},
                              {kOther, 0.3}, {"x.", 0.2}, {"x-", 0.1}, {mark, 0.6}}).dump() + "\n";
  runner::test::write_text(dir + "/env.json", env.dump());
  runner::test::write_text(dir + "/recipe.resolved.json", resolved.dump());
  runner::test::write_text(dir + "/summary.json", summary.dump());
  runner::test::write_text(dir + "/metrics.jsonl", events);
  return dir;
}

std::string report_of(const std::vector<std::string>& paths, const std::string& out) {
  std::ostringstream o, e;
  REQUIRE(run_report_command({paths, out}, o, e) == 0);
  return runner::test::read_text(out);
}

}  // namespace

TEST_CASE("a report of runs whose every name field holds markup has only the runner's own markup", "[report]") {
  std::string dir = runner::test::tmp_dir("report-markup");
  std::string a = marked_run(dir + "/runs", "20260102T030405Z-aaaaaa", kQuoteBreaker);
  std::string b = marked_run(dir + "/runs", "20260102T030405Z-bbbbbb", kOther);
  std::string one = report_of({a}, dir + "/one.html");
  check_only_runner_markup(one);
  std::string two = report_of({a, b}, dir + "/two.html");
  check_only_runner_markup(two);
  CHECK(two.find("id=\"recipe-differences\"") != std::string::npos);  // the recipe values are in a table
  // Metric names that map to one id ("x." and "x-") get two ids.
  CHECK(one.find("<svg id=\"chart-eval-x-\"") != std::string::npos);
  CHECK(one.find("<svg id=\"chart-eval-x--2\"") != std::string::npos);
}

TEST_CASE("a sweep report whose names, keys and values hold markup has only the runner's own markup", "[report]") {
  std::string dir = runner::test::tmp_dir("report-markup-sweep");
  std::string sweep = dir + "/runs/s";
  std::string run = marked_run(sweep, "20260102T030405Z-cccccc", kQuoteBreaker);
  nlohmann::json points = nlohmann::json::array();
  for (double lr : {1e-3, 1e-2})
    points.push_back({{"point", kIdBreaker + std::to_string(lr)},
                      {"overrides", {{kIdBreaker, lr}, {kQuoteBreaker, kOther}, {"a.b", kIdBreaker}, {"a-b", 1}}},
                      {"status", kQuoteBreaker}, {"best", lr}, {"final", lr}, {"run_dir", run}});
  runner::test::write_text(sweep + "/sweep_summary.json",
                           nlohmann::json({{"sweep", kIdBreaker}, {"metric", kQuoteBreaker},
                                           {"direction", kIdBreaker}, {"points", points}}).dump());
  runner::test::write_text(sweep + "/sweep_ledger.json", "{}");
  std::string html = report_of({sweep}, dir + "/r.html");
  check_only_runner_markup(html);
  CHECK(html.find("<svg id=\"chart-sweep-a-b\"") != std::string::npos);
  CHECK(html.find("<svg id=\"chart-sweep-a-b-2\"") != std::string::npos);
}
