// `runner report` on hand-written run and sweep directories: the charts and
// their series, the best-checkpoint marker, the identity and difference
// tables, the sweep ranking, the axis ticks, and bad input (exit 2, nothing
// overwritten).
#include "catch.h"

#include "bounded_run.h"

#include "report/downsample.h"
#include "report/report_command.h"
#include "report/report_page.h"
#include "report/svg_chart.h"
#include "report_fixtures.h"
#include "shared.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

using namespace runner;
using runner::test::FakeRun;

namespace {

std::string report_of(const std::vector<std::string>& paths, const std::string& out) {
  std::ostringstream o, e;
  REQUIRE(run_report_command({paths, out}, o, e) == 0);
  return runner::test::read_text(out);
}

// The <svg id="..."> element of a chart, or "" when the page has none.
std::string chart(const std::string& html, const std::string& id) {
  size_t at = html.find("<svg id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</svg>", at) - at);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// What `report` and `ls` of a long run may hold at most. A build with
// AddressSanitizer (`scripts/test.sh --sanitize`) also keeps up to 256 MiB of
// freed memory in its quarantine (ASan's default quarantine_size_mb) to catch
// use after free: its bound adds that.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kPeakBoundMiB = 300 + 256;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr long kPeakBoundMiB = 300 + 256;
#else
constexpr long kPeakBoundMiB = 300;
#endif
#else
constexpr long kPeakBoundMiB = 300;
#endif

// `runner report RUN --out OUT` as a user runs it, which must stay under the bound; the page.
std::string bounded_report(const std::string& run, const std::string& out) {
  auto report = runner::test::run_bounded(runner::test::runner_exe() + " report " + run + " --out " + out);
  INFO(report.out);
  REQUIRE(report.exit_code == 0);
  CHECK(report.peak_mib < kPeakBoundMiB);
  return runner::test::read_text(out);
}

}  // namespace

TEST_CASE("nice ticks are 1, 2 or 5 times a power of ten and cover the data", "[report]") {
  auto unit = nice_ticks(0, 1);  // raw step 0.2 -> 0.2
  REQUIRE(unit.size() == 6);
  for (size_t i = 0; i < unit.size(); ++i) CHECK(unit[i] == Approx(0.2 * static_cast<double>(i)).margin(1e-12));
  auto t = nice_ticks(0.13, 0.87);  // raw step 0.148 -> 0.1
  REQUIRE(t.size() == 9);
  CHECK(t.front() == Approx(0.1));
  CHECK(t.back() == Approx(0.9));
  CHECK(nice_ticks(3, 97) == std::vector<double>{0, 20, 40, 60, 80, 100});  // raw 18.8 -> 20
  auto decades = log_ticks(2e-5, 3e-3);
  REQUIRE(decades.size() == 4);
  CHECK(decades.front() == Approx(1e-5));
  CHECK(decades.back() == Approx(1e-2));
  using Labels = std::vector<std::string>;
  CHECK(tick_labels({0, 0.2, 0.4}, false) == Labels{"0", "0.2", "0.4"});
  CHECK(tick_labels({0, 20, 40, 60}, false) == Labels{"0", "20", "40", "60"});
  CHECK(tick_labels({0, 5e-5, 1e-4, 1.5e-4}, false) == Labels{"0", "0.5e-4", "1.0e-4", "1.5e-4"});
  CHECK(tick_labels({0, 2e4, 4e4, 6e4, 8e4, 1e5, 1.2e5}, false) ==
        Labels{"0", "20k", "40k", "60k", "80k", "100k", "120k"});
  CHECK(tick_labels({1e-5, 1e-4, 1e-3, 1e-2}, true) == Labels{"1e-5", "1e-4", "1e-3", "1e-2"});
  CHECK(tick_labels({0.01, 0.1, 1, 10}, true) == Labels{"0.01", "0.1", "1", "10"});
  CHECK(tick_labels({1, 10, 100, 1e3, 1e4, 1e5}, true) == Labels{"1", "10", "100", "1000", "10k", "100k"});
}

TEST_CASE("every axis writes its tick labels in one format", "[report]") {
  // Never two formats on one axis: not "0.0010" beside "8e-4", nor "80000"
  // beside "1.0e5".
  auto y_ticks = [](double top) {
    ChartSpec spec;
    spec.id = "c";
    ChartSeries s;
    s.points = {{0, 0}, {1, top}};
    spec.series = {s};
    std::string svg = render_chart(spec);
    std::vector<std::string> out;  // the y ticks come first, end-anchored
    std::regex tick("<text class=\"tick\" x=\"[0-9.]+\" y=\"[0-9.]+\" text-anchor=\"end\">([^<]*)</text>");
    for (std::sregex_iterator it(svg.begin(), svg.end(), tick), end; it != end; ++it) out.push_back((*it)[1]);
    return out;
  };
  using Labels = std::vector<std::string>;
  CHECK(y_ticks(1e-3) == Labels{"0", "0.0002", "0.0004", "0.0006", "0.0008", "0.0010"});
  CHECK(y_ticks(1.1e5) == Labels{"0", "20k", "40k", "60k", "80k", "100k", "120k"});
  CHECK(y_ticks(1.4e-4) == Labels{"0", "0.2e-4", "0.4e-4", "0.6e-4", "0.8e-4", "1.0e-4", "1.2e-4", "1.4e-4"});
}

TEST_CASE("a run's report has every chart with its series, the best checkpoint and the identity", "[report]") {
  std::string dir = runner::test::tmp_dir("report-one");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  std::string html = report_of({run}, dir + "/r.html");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("prefers-color-scheme: dark") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);      // nothing to run, nothing to fetch
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));
  for (const char* id : {"chart-train-loss", "chart-lr", "chart-grad-norm", "chart-throughput",
                         "chart-tokens-per-s", "chart-eval-loss", "chart-eval-accuracy"}) {
    INFO(id);
    std::string svg = chart(html, id);
    REQUIRE(!svg.empty());
    CHECK(count(svg, "class=\"series-group\"") == 1);
    CHECK(svg.find("data-marker=\"best checkpoint\" data-step=\"3\"") != std::string::npos);
    CHECK(svg.find("optimizer step") != std::string::npos);  // the x axis is labelled
  }
  CHECK(chart(html, "chart-loss-scale").empty());  // fp32: no loss scale recorded
  CHECK(chart(html, "chart-train-loss").find("data-series=\"train.loss\" data-label=\"demo\" data-points=\"3\"") !=
        std::string::npos);
  CHECK(chart(html, "chart-eval-accuracy").find("data-series=\"eval.accuracy\" data-label=\"demo\" "
                                                "data-points=\"2\"") != std::string::npos);
  // Identity: commit, machine, the data file's hash, status and wall time (125 s).
  for (const char* text : {"abc123def456", "Test CPU", "train.tsv", "aaaaaaaaaaaaaaaa", "completed",
                           "2 min 05 s", "/recipes/demo.toml", "--set optimizer.lr=0.001",
                           "eval.accuracy = 0.7500 at step 3"})
    CHECK(html.find(text) != std::string::npos);
  CHECK(html.find("recipe-differences") == std::string::npos);  // one run: nothing to compare
}

TEST_CASE("several runs are overlaid with a legend and a table of their recipe differences", "[report]") {
  std::string dir = runner::test::tmp_dir("report-two");
  FakeRun a, b;
  b.lr = 3e-4, b.fp16 = true, b.losses = {0.9, 0.8, 0.75}, b.accuracies = {0.6, 0.65};
  std::string ra = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", a);
  std::string rb = runner::test::make_fake_run(dir + "/runs", "20260102T040000Z-bbbbbb", b);
  std::string html = report_of({ra, rb}, dir + "/r.html");
  std::string loss = chart(html, "chart-train-loss");
  CHECK(count(loss, "class=\"series-group\"") == 2);
  CHECK(loss.find("data-label=\"demo/20260102T030405Z-aaaaaa\"") != std::string::npos);
  CHECK(loss.find("data-label=\"demo/20260102T040000Z-bbbbbb\"") != std::string::npos);
  CHECK(count(loss, "class=\"marker\"") == 2);
  // Only b ran in fp16: the loss-scale chart exists and its a-series is empty.
  std::string scale = chart(html, "chart-loss-scale");
  REQUIRE(!scale.empty());
  CHECK(scale.find("data-points=\"0\"") != std::string::npos);
  CHECK(scale.find("data-points=\"3\"") != std::string::npos);
  auto diffs = recipe_differences({load_run_history(ra), load_run_history(rb)});
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].first == "optimizer.lr");
  CHECK(diffs[0].second == std::vector<std::string>{"0.001", "0.0003"});
  CHECK(html.find("id=\"recipe-differences\"") != std::string::npos);
}

TEST_CASE("overlaid runs have one legend for the figure, none under each chart", "[report]") {
  // One legend for the figure: the charts repeat none.
  std::string dir = runner::test::tmp_dir("report-legend");
  FakeRun a, b;
  b.lr = 3e-4;
  std::string ra = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", a);
  std::string rb = runner::test::make_fake_run(dir + "/runs", "20260102T040000Z-bbbbbb", b);
  std::string html = report_of({ra, rb}, dir + "/r.html");
  CHECK(count(html, "class=\"legend-text\"") == 0);
  CHECK(count(html, "class=\"figure-legend\"") == 1);
  CHECK(count(html, "class=\"legend-item\"") == 2);
  size_t legend = html.find("class=\"figure-legend\"");
  CHECK(legend < html.find("<svg id=\"chart-train-loss\""));  // above the charts it explains
  CHECK(html.find("demo/20260102T030405Z-aaaaaa</span>", legend) < html.find("<svg", legend));
}

TEST_CASE("the run charts' x axis is the step, the samples, the epoch or the elapsed time", "[report]") {
  // The fixture: 3 steps an
  // epoch, an effective batch of 16, elapsed_s = 10 x step + 0.5; the best checkpoint at step 3.
  std::string dir = runner::test::tmp_dir("report-x");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  struct Case {
    const char* axis;
    const char* label;
    const char* train_x;  // train loss at step 2
    const char* eval_x;   // eval accuracy at step 3
  };
  for (const Case& c : {Case{"step", "optimizer step", "2", "3"},
                        Case{"samples", "training samples (step \u00d7 effective batch)", "32", "48"},
                        Case{"epoch", "epoch (steps / steps per epoch)", "0.666667", "1"},
                        Case{"time", "elapsed time (s, resumed sessions included)", "20.5", "30.5"}}) {
    INFO(c.axis);
    std::string out = dir + "/" + c.axis + ".html";
    auto report = runner::test::run_command(runner::test::runner_exe() + " report " + run + " --x " + c.axis +
                                            " --out " + out);
    INFO(report.out);
    REQUIRE(report.exit_code == 0);
    std::string html = runner::test::read_text(out);
    std::string loss = chart(html, "chart-train-loss"), accuracy = chart(html, "chart-eval-accuracy");
    CHECK(loss.find(std::string(">") + c.label + "</text>") != std::string::npos);
    CHECK(loss.find(std::string(c.label) + " = " + c.train_x + ", ") != std::string::npos);
    CHECK(accuracy.find(std::string(c.label) + " = " + c.eval_x + ", ") != std::string::npos);
    CHECK(accuracy.find("data-marker=\"best checkpoint\" data-step=\"3\"") != std::string::npos);
    CHECK(html.find(std::string("every chart is against the ") + c.label) != std::string::npos);
  }
  auto bad = runner::test::run_command(runner::test::runner_exe() + " report " + run + " --x wall --out " +
                                       dir + "/bad.html");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.find("--x: expected step, samples, epoch or time, found \"wall\"") != std::string::npos);
}

TEST_CASE("samples of an evaluation before the first train event come from the recipe's batch", "[report]") {
  std::string dir = runner::test::tmp_dir("report-x-samples");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  runner::test::write_text(run + "/metrics.jsonl",
                           "{\"event\": \"eval\", \"step\": 1, \"accuracy\": 0.5}\n"
                           "{\"event\": \"train\", \"step\": 2, \"loss\": 0.5, \"effective_batch\": 8}\n"
                           "{\"event\": \"eval\", \"step\": 2, \"accuracy\": 0.6}\n");
  RunHistory h = load_run_history(run, XAxis::Samples);  // data.train_batch_size = 16
  CHECK(h.eval_series.at("accuracy").points() == std::vector<std::pair<double, double>>{{16, 0.5}, {16, 0.6}});
  CHECK(h.train_series.at("loss").points() == std::vector<std::pair<double, double>>{{16, 0.5}});
}

TEST_CASE("run.name is left out of the recipe differences", "[report]") {
  // The points of a sweep differ by their names, which says nothing.
  std::string dir = runner::test::tmp_dir("report-names");
  FakeRun a, b;
  a.name = "alpha", b.name = "beta", b.lr = 3e-4;
  std::string ra = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", a);
  std::string rb = runner::test::make_fake_run(dir + "/runs", "20260102T040000Z-bbbbbb", b);
  auto diffs = recipe_differences({load_run_history(ra), load_run_history(rb)});
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].first == "optimizer.lr");
  std::string html = report_of({ra, rb}, dir + "/r.html");
  CHECK(html.find("<code>run.name</code>") == std::string::npos);
  CHECK(html.find("<code>optimizer.lr</code>") != std::string::npos);
}

TEST_CASE("one run's page puts its identity beside the charts, in a grid that uses the width", "[report]") {
  // The identity table sits beside the charts, not alone above them.
  std::string dir = runner::test::tmp_dir("report-width");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  std::string html = report_of({run}, dir + "/r.html");
  CHECK(html.find("<div class=\"single-run\"><div><h2>Identity</h2><table id=\"identity\">") !=
        std::string::npos);
  CHECK(html.find("</table></div><div><h2>Training and evaluation</h2>") != std::string::npos);
  // Two columns (the identity, the charts), one on a narrow screen.
  CHECK(html.find(".single-run { display: grid; grid-template-columns: minmax(300px, 420px) minmax(0, 1fr);") !=
        std::string::npos);
  CHECK(html.find("@media (max-width: 900px) { .single-run { grid-template-columns: minmax(0, 1fr); } }") !=
        std::string::npos);
  FakeRun other;
  other.name = "other";
  std::string second = runner::test::make_fake_run(dir + "/runs", "20260102T040000Z-bbbbbb", other);
  CHECK(report_of({run, second}, dir + "/two.html").find("<div class=\"single-run\">") == std::string::npos);
}

TEST_CASE("points of a sweep with equal values share a rank, marked", "[report]") {
  std::string dir = runner::test::tmp_dir("report-ties");
  std::string sweep = dir + "/runs/ties";
  std::filesystem::create_directories(sweep);
  nlohmann::json points = nlohmann::json::array();
  const nlohmann::json bests = {0.7, 0.8, 0.7, 0.6, nullptr};
  for (size_t i = 0; i < bests.size(); ++i)
    points.push_back({{"point", "p" + std::to_string(i)}, {"overrides", {{"optimizer.lr", 1e-4 * double(i + 1)}}},
                      {"status", "completed"}, {"best", bests[i]}, {"final", bests[i]}, {"run_dir", ""}});
  runner::test::write_text(sweep + "/sweep_summary.json",
                           nlohmann::json({{"sweep", "ties"}, {"metric", "eval.accuracy"},
                                           {"direction", "higher"}, {"points", points}}).dump());
  runner::test::write_text(sweep + "/sweep_ledger.json", "{}");
  std::string html = report_of({sweep}, dir + "/r.html");
  std::vector<std::string> ranks;  // the first cell of each row of the points table
  std::string table = html.substr(html.find("<table id=\"sweep-points\">"));
  std::regex first_cell("<tr><td>([^<]*)</td>");
  for (std::sregex_iterator it(table.begin(), table.begin() + static_cast<long>(table.find("</table>")), first_cell),
       end;
       it != end; ++it)
    ranks.push_back((*it)[1]);
  // 0.8 first, the two 0.7 (p0, p2) tied second, 0.6 fourth, the point without a value last.
  CHECK(ranks == std::vector<std::string>{"1", "=2", "=2", "4", "5"});
  size_t p0 = html.find("<code>p0</code>"), p2 = html.find("<code>p2</code>"), p3 = html.find("<code>p3</code>");
  CHECK((p0 < p2 && p2 < p3));
}

TEST_CASE("a sweep's report ranks the points and plots the metric against each swept key", "[report]") {
  std::string dir = runner::test::tmp_dir("report-sweep");
  std::string sweep = dir + "/runs/tiny";
  std::filesystem::create_directories(sweep);
  nlohmann::json points = nlohmann::json::array();
  double lrs[] = {1e-4, 1e-3, 1e-2}, best[] = {0.61, 0.74, 0.52};
  for (int i = 0; i < 3; ++i) {
    FakeRun r;
    r.name = "p" + std::to_string(i);
    r.lr = lrs[i];
    r.accuracies = {best[i], best[i] - 0.01};
    std::string run = runner::test::make_fake_run(sweep, "20260102T030405Z-00000" + std::to_string(i), r);
    points.push_back({{"point", r.name}, {"overrides", {{"optimizer.lr", lrs[i]}, {"model.type", i ? "bert" : "electra"}}},
                      {"status", "completed"}, {"best", best[i]}, {"final", best[i] - 0.01},
                      {"wall_seconds", 10.0}, {"run_dir", run}});
  }
  points.push_back({{"point", "p3"}, {"overrides", {{"optimizer.lr", 0.1}}}, {"status", "failed"},
                    {"best", nullptr}, {"final", nullptr}, {"run_dir", ""}});
  runner::test::write_text(sweep + "/sweep_summary.json",
                           nlohmann::json({{"sweep", "tiny"}, {"metric", "eval.accuracy"},
                                           {"direction", "higher"}, {"points", points}}).dump());
  runner::test::write_text(sweep + "/sweep_ledger.json", "{}");
  std::string html = report_of({sweep}, dir + "/r.html");
  // Ranked best first: p1 (0.74), p0 (0.61), p2 (0.52), then the failed p3.
  size_t p1 = html.find("<code>p1</code>"), p0 = html.find("<code>p0</code>"),
         p2 = html.find("<code>p2</code>"), p3 = html.find("<code>p3</code>");
  CHECK((p1 < p0 && p0 < p2 && p2 < p3));
  std::string lr = chart(html, "chart-sweep-optimizer-lr");
  REQUIRE(!lr.empty());
  CHECK(lr.find("(log scale)") != std::string::npos);  // 1e-4 .. 1e-2 spans 100x
  CHECK(lr.find("data-series=\"sweep.best\" data-label=\"best eval.accuracy\" data-points=\"3\"") !=
        std::string::npos);
  std::string type = chart(html, "chart-sweep-model-type");  // a categorical axis
  REQUIRE(!type.empty());
  CHECK(type.find(">electra</text>") != std::string::npos);
  CHECK(type.find(">bert</text>") != std::string::npos);
  // The points' runs overlaid, labelled by point.
  CHECK(count(chart(html, "chart-eval-accuracy"), "class=\"series-group\"") == 3);
}

TEST_CASE("bad report input is exit 2 naming the path, and an earlier report is kept", "[report]") {
  std::string dir = runner::test::tmp_dir("report-bad");
  std::string out = dir + "/r.html";
  runner::test::write_text(out, "earlier report");
  std::string exe = runner::test::runner_exe();
  auto missing = runner::test::run_command(exe + " report " + dir + "/nope --out " + out);
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.find(dir + "/nope") != std::string::npos);
  CHECK(missing.out.find("no such file or directory") != std::string::npos);

  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  runner::test::write_text(run + "/summary.json", "{\"status\": \"compl");  // cut short
  auto damaged = runner::test::run_command(exe + " report " + run + " --out " + out);
  INFO(damaged.out);
  CHECK(damaged.exit_code == 2);
  CHECK(damaged.out.find(run + "/summary.json") != std::string::npos);
  CHECK(damaged.out.find("not valid JSON") != std::string::npos);
  CHECK(damaged.out.find("json.exception") == std::string::npos);  // no raw library message

  auto folder = runner::test::run_command(exe + " report " + dir + "/runs --out " + out);
  CHECK(folder.exit_code == 2);
  CHECK(folder.out.find("runner ls") != std::string::npos);  // a folder of runs: the hint says how to list them
  CHECK(runner::test::read_text(out) == "earlier report");
  CHECK(runner::test::run_command(exe + " report").exit_code == 2);
}

TEST_CASE("damaged lines of metrics.jsonl are counted and the first is named; a cut-off last line is expected",
          "[report]") {
  // Bare NaN, binary garbage and a cut-off line are skipped and said.
  std::string dir = runner::test::tmp_dir("report-damaged");
  std::string exe = runner::test::runner_exe();
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  auto cut = runner::test::run_command(exe + " report " + run + " --out " + dir + "/cut.html");
  INFO(cut.out);
  REQUIRE(cut.exit_code == 0);
  CHECK_THAT(cut.out, Catch::Contains(run + "/metrics.jsonl:7: warning: the last line was cut off") &&
                          Catch::Contains("killed while writing it"));
  CHECK(runner::test::read_text(dir + "/cut.html").find("the last line was cut off") != std::string::npos);

  runner::test::write_text(run + "/metrics.jsonl",
                           "{\"event\": \"start\", \"total_steps\": 6}\n"
                           "{\"event\": \"train\", \"step\": 2, \"loss\": NaN}\n"
                           "\x89PNG\r\n\x1a\x01" "binary\n"
                           "{\"event\": \"train\", \"step\": 4, \"loss\": 0.5}\n"
                           "{\"step\": 6, \"loss\": Infinity}\n");
  auto bad = runner::test::run_command(exe + " report " + run + " --out " + dir + "/bad.html");
  INFO(bad.out);
  REQUIRE(bad.exit_code == 0);
  CHECK_THAT(bad.out, Catch::Contains(run + "/metrics.jsonl:2: warning: skipped 4 lines that are not JSON "
                                            "events, the first at line 2"));
  std::string html = runner::test::read_text(dir + "/bad.html");
  CHECK(html.find("skipped 4 lines") != std::string::npos);
  CHECK(html.find("data-series=\"train.loss\" data-label=\"demo\" data-points=\"1\"") != std::string::npos);
  auto ls = runner::test::run_command(exe + " ls --json " + dir + "/runs");
  REQUIRE(ls.exit_code == 0);
  CHECK(nlohmann::json::parse(ls.out)[0]["damaged_lines"] == 4);
}

TEST_CASE("a run of 300,000 logged steps is reported and listed in bounded memory, its charts downsampled",
          "[report]") {
  // A huge metrics.jsonl is read in bounded memory into a page of bounded size.
  std::string dir = runner::test::tmp_dir("report-long");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  {
    std::ofstream out(run + "/metrics.jsonl", std::ios::binary);
    out << "{\"event\": \"start\", \"total_steps\": 300000}\n";
    for (int step = 1; step <= 300000; ++step) {
      double loss = step == 123457 ? 9.5 : step == 271828 ? 0.001 : 1.0 + (step % 97) / 1000.0;  // a spike, the best
      out << "{\"event\": \"train\", \"step\": " << step << ", \"loss\": " << loss
          << ", \"lr\": 0.0001, \"grad_norm\": 1.5, \"samples_per_s\": 40.0, \"tokens_per_s\": 900.0}\n";
    }
  }
  std::string html = bounded_report(run, dir + "/r.html");
  CHECK(html.size() < (2u << 20));
  std::string loss = chart(html, "chart-train-loss");
  std::smatch kept;
  REQUIRE(std::regex_search(loss, kept, std::regex("data-series=\"train.loss\" data-label=\"demo\" data-points=\"(\\d+)\"")));
  CHECK(std::stoi(kept[1]) <= 4096);
  CHECK(std::stoi(kept[1]) >= 1024);
  // The spike and the lowest loss are drawn: the y axis reaches 9.5 and goes below 0.01.
  CHECK(loss.find(">10</text>") != std::string::npos);
  auto ls = runner::test::run_bounded(runner::test::runner_exe() + " ls " + dir + "/runs");
  INFO(ls.out);
  CHECK(ls.exit_code == 0);
  CHECK(ls.peak_mib < kPeakBoundMiB);
}

TEST_CASE("a downsampled series keeps its ends, its lowest and highest points, in order, in bounded size",
          "[report]") {
  Downsampler few(1024);
  for (int i = 0; i < 1000; ++i) few.add(i, i % 7);
  CHECK(few.points().size() == 1000);  // up to max_buckets points are kept as they came
  Downsampler many(1024);
  for (int i = 1; i <= 1000000; ++i) many.add(i, i == 500001 ? -3.0 : i == 777777 ? 42.0 : (i % 13) / 10.0);
  auto pts = many.points();
  CHECK(many.seen() == 1000000);
  CHECK(pts.size() <= 4 * 1024);
  CHECK(pts.size() >= 1024);
  CHECK(pts.front() == std::make_pair(1.0, 0.1));
  CHECK(pts.back() == std::make_pair(1000000.0, (1000000 % 13) / 10.0));
  CHECK(std::find(pts.begin(), pts.end(), std::make_pair(500001.0, -3.0)) != pts.end());
  CHECK(std::find(pts.begin(), pts.end(), std::make_pair(777777.0, 42.0)) != pts.end());
  CHECK(std::is_sorted(pts.begin(), pts.end()));
}

TEST_CASE("evaluations are read into bounded series too, and made-up metric names are capped", "[report]") {
  // Every record reader is bounded; made-up eval names cannot add charts without end.
  std::string dir = runner::test::tmp_dir("report-evals");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  {
    std::ofstream out(run + "/metrics.jsonl", std::ios::binary);
    for (int step = 1; step <= 100000; ++step)
      out << "{\"event\": \"eval\", \"step\": " << step << ", \"accuracy\": " << (step % 89) / 100.0
          << ", \"m" << step << "\": 1, \"is_best\": " << (step == 4242 ? "true" : "false") << "}\n";
  }
  std::string html = bounded_report(run, dir + "/r.html");
  CHECK(html.size() < (4u << 20));
  CHECK(count(html, "<svg id=\"chart-eval-") == 64);  // accuracy and the first 63 made-up names
  std::string accuracy = chart(html, "chart-eval-accuracy");
  std::smatch kept;
  REQUIRE(std::regex_search(accuracy, kept, std::regex("data-points=\"(\\d+)\"")));
  CHECK(std::stoi(kept[1]) <= 4096);
  CHECK(accuracy.find("data-step=\"3\"") != std::string::npos);  // summary.json's best step still marks it
}

TEST_CASE("a run's report shows its hyperparameters and where it was interrupted and resumed", "[report]") {
  std::string dir = runner::test::tmp_dir("report-resumed");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  std::string events = runner::test::read_text(run + "/metrics.jsonl");
  events = events.substr(0, events.rfind('\n') + 1);  // without the cut last line
  // A resume from the step-4 checkpoint, between the train events of steps 4 and 6.
  size_t at = events.find("{\"effective_batch\":16,\"elapsed_s\":60.5");
  REQUIRE(at != std::string::npos);
  events.insert(at, R"({"checkpoint":"runs/demo/x/checkpoints/step-00000004","event":"resume","step":4})" "\n");
  runner::test::write_text(run + "/metrics.jsonl", events);
  std::string html = report_of({run}, dir + "/r.html");
  CHECK(html.find("at step 4 from step-00000004") != std::string::npos);
  CHECK(chart(html, "chart-train-loss").find("data-marker=\"resumed\" data-step=\"4\"") != std::string::npos);
  // The fake run's resolved recipe: adamw at lr 0.001, batch 16, length 64, seed 7.
  CHECK(html.find("optimizer adamw \u00b7 lr 0.001 \u00b7 batch 16 \u00b7 max length 64 \u00b7 seed 7") !=
        std::string::npos);

  std::string plain = runner::test::make_fake_run(dir + "/runs", "20260102T030406Z-bbbbbb", FakeRun{});
  std::string page = report_of({plain}, dir + "/plain.html");
  CHECK(page.find("data-marker=\"resumed\"") == std::string::npos);
}

TEST_CASE("a y axis spans at least 5% of its values' size, so noise in the last digits is drawn flat", "[report]") {
  auto y_ticks = [](const std::vector<std::pair<double, double>>& points) {
    ChartSpec spec;
    spec.id = "chart";
    spec.series.push_back(ChartSeries{"a", "eval.loss", points});
    std::string svg = render_chart(spec);
    std::vector<double> ticks;
    std::regex tick(R"(<text class="tick" x="[0-9.]+" y="[0-9.]+" text-anchor="end">([^<]+)</text>)");
    for (std::sregex_iterator it(svg.begin(), svg.end(), tick), end; it != end; ++it)
      ticks.push_back(std::stod((*it)[1].str()));
    REQUIRE(ticks.size() >= 2);
    return std::make_pair(*std::min_element(ticks.begin(), ticks.end()), *std::max_element(ticks.begin(), ticks.end()));
  };
  // 0.6099 to 0.6106 is 0.1% of 0.61: the axis covers at least 0.05 x 0.6106 around them.
  auto [lo, hi] = y_ticks({{0, 0.6106}, {1, 0.6101}, {2, 0.6099}});
  CHECK(hi - lo >= 0.05 * 0.6106);
  CHECK(lo <= 0.6099);
  CHECK(hi >= 0.6106);
  // A real trend (0.69 to 0.35) keeps the axis fitted to it.
  auto [tlo, thi] = y_ticks({{0, 0.69}, {1, 0.5}, {2, 0.35}});
  CHECK(tlo >= 0.3);
  CHECK(thi <= 0.7);
  // Values near zero are never pushed below it.
  CHECK(y_ticks({{0, 0.0010}, {1, 0.00101}}).first >= 0.0);
}

TEST_CASE("a sweep with replicates reports its configurations first and draws no seed axis", "[report]") {
  nlohmann::json points = nlohmann::json::array();
  for (int seed : {1, 2})
    for (double lr : {1e-4, 3e-4})
      points.push_back({{"point", "p" + std::to_string(seed) + (lr < 2e-4 ? "a" : "b")},
                        {"overrides", {{"optimizer.lr", lr}, {"run.seed", seed}}},
                        {"status", "completed"}, {"best", 0.7}, {"final", 0.7}});
  nlohmann::json configurations = nlohmann::json::array(
      {{{"configuration", "optimizer.lr=0.0001"}, {"points", {"p1a", "p2a"}}, {"n", 2}, {"mean", 0.8125},
        {"sd", 0.0125}},
       {{"configuration", "optimizer.lr=0.0003"}, {"points", {"p1b", "p2b"}}, {"n", 2}, {"mean", 0.75},
        {"sd", nullptr}}});
  nlohmann::json summary = {{"sweep", "seeds"}, {"metric", "eval.f1"}, {"direction", "higher"},
                            {"points", points}, {"replicates", {"run.seed"}}, {"configurations", configurations}};
  std::string html = sweep_report_html(summary, {}, {});
  size_t table = html.find("<table id=\"sweep-configurations\">");
  REQUIRE(table != std::string::npos);
  CHECK(table < html.find("<table id=\"sweep-points\">"));
  CHECK(html.find("Configurations over replicates of run.seed") != std::string::npos);
  CHECK(html.find("<code>optimizer.lr=0.0001</code>") != std::string::npos);
  CHECK(html.find("<code>p1a p2a</code>") != std::string::npos);
  CHECK(html.find("chart-sweep-optimizer-lr") != std::string::npos);
  CHECK(html.find("chart-sweep-run-seed") == std::string::npos);
}
