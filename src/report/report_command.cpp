#include "report/report_command.h"

#include "report/report_page.h"
#include "report/run_history.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/output_check.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <ostream>

namespace runner {
namespace fs = std::filesystem;

namespace {

bool is_sweep_dir(const std::string& dir) {
  return fs::is_regular_file(dir + "/sweep_summary.json") || fs::is_regular_file(dir + "/sweep_ledger.json");
}

[[noreturn]] void bad_path(const std::string& path, const std::string& what, const std::string& hint) {
  throw InputError(make_error(SourceLocation{path, 0, 0, ""}, "", what, hint));
}

void check_path(const std::string& path) {
  if (!fs::exists(path)) bad_path(path, "no such file or directory", "pass a run directory or a sweep directory");
  if (is_sweep_dir(path) || looks_like_run_dir(path)) return;
  auto inside = find_run_dirs(path);
  bad_path(path, "neither a run directory (env.json, summary.json) nor a sweep directory (sweep_summary.json)",
           inside.empty() ? "pass a directory written by `runner run` or `runner sweep`"
                          : fmt::format("it holds {} runs: `runner ls {}` lists them; pass one or more of them",
                                        inside.size(), path));
}

// Damaged lines of a run's metrics.jsonl are skipped: say how many and where.
void warn_damaged_lines(const RunHistory& run, std::ostream& err) {
  if (auto warning = run.damaged_lines_warning()) err << warning->format() << "\n";
}

// The runs of the sweep's points, in ranked order; a point whose run cannot be
// read is left out with a warning, so one damaged run does not hide the others.
void load_point_runs(const nlohmann::json& ranked, XAxis x_axis, std::vector<RunHistory>& runs,
                     std::vector<std::string>& labels, std::ostream& err) {
  for (const auto& p : ranked) {
    std::string dir = record_string(p, "run_dir");
    if (dir.empty()) continue;
    try {
      runs.push_back(load_run_history(dir, x_axis));
      labels.push_back(record_string(p, "point", runs.back().name()));
      warn_damaged_lines(runs.back(), err);
    } catch (const InputError& e) {
      err << "warning: point " << terminal_safe(record_string(p, "point", "?")) << ": " << e.diagnostic().format()
          << "\n";
    }
  }
}

std::string sweep_report(const std::string& dir, XAxis x_axis, std::ostream& err) {
  std::string path = dir + "/sweep_summary.json";
  if (!fs::is_regular_file(path))
    bad_path(path, "the sweep has no summary yet",
             "it is written as the sweep's points finish; `runner sweep SWEEP_FILE --status` shows the ledger");
  nlohmann::json summary = read_run_record(path);
  if (!summary.is_object() || !summary.contains("points") || !summary["points"].is_array())
    bad_path(path, "expected an object with a \"points\" list", "run the sweep again to rewrite its summary");
  std::vector<RunHistory> runs;
  std::vector<std::string> labels;
  load_point_runs(ranked_points(summary), x_axis, runs, labels, err);
  return sweep_report_html(summary, runs, labels);
}

void write_atomically(const std::string& path, const std::string& text) {
  fs::path target = fs::absolute(path);
  if (!fs::is_directory(target.parent_path()))
    bad_path(path, "the folder " + target.parent_path().string() + " does not exist",
             "create it first, or pass --out with a file in an existing folder");
  std::string tmp = target.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f) {
      int error_number = errno;
      std::error_code ec;
      fs::remove(tmp, ec);  // a cut report is no report: nothing half-written stays behind
      bad_path(path, "cannot write " + tmp + ": " + write_failure_reason(error_number),
               "check the folder's permissions and free space");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    bad_path(path, "cannot replace the file", "check the folder's permissions");
  }
}

}  // namespace

std::string report_file(const ReportOptions& o) {
  if (!o.out.empty()) return o.out;
  if (o.paths.size() == 1) return (fs::path(o.paths[0]) / "report.html").lexically_normal().string();
  return "report.html";
}

int run_report_command(const ReportOptions& o, std::ostream& out, std::ostream& err) {
  if (o.paths.empty()) {
    err << "error: runner report: expected a run directory, several run directories, or a sweep directory\n"
        << "  hint: `runner ls` lists the runs under runs/\n";
    return 2;
  }
  for (const auto& p : o.paths) check_path(p);
  std::string html;
  if (is_sweep_dir(o.paths[0])) {
    if (o.paths.size() > 1)
      bad_path(o.paths[1], "a sweep directory is reported alone", "pass the sweep directory by itself");
    html = sweep_report(o.paths[0], o.x_axis, err);
  } else {
    std::vector<RunHistory> runs;
    for (const auto& p : o.paths) {
      if (is_sweep_dir(p)) bad_path(p, "a sweep directory is reported alone", "pass the sweep directory by itself");
      runs.push_back(load_run_history(p, o.x_axis));
      warn_damaged_lines(runs.back(), err);
    }
    html = runs_report_html(runs, run_labels(runs));
  }
  const std::string target = report_file(o);
  write_atomically(target, html);
  out << fmt::format("wrote {} ({} KiB)\n", terminal_safe(target), (html.size() + 1023) / 1024);
  return 0;
}

}  // namespace runner
