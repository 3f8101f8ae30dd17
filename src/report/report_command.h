// `runner report PATH... [--out FILE] [--x AXIS]` and `runner ls [DIR]`: reading run and
// sweep directories back, for people (HTML, a table) and scripts (--json).
#pragma once

#include "report/x_axis.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace runner {

struct ReportOptions {
  std::vector<std::string> paths;  // one or more run directories, or one sweep directory
  std::string out;  // --out; "" for report_file()'s choice
  XAxis x_axis = XAxis::Step;  // what the run charts' x axis counts (--x)
};

// Where the report goes: --out, else report.html in the run or sweep directory
// (beside what it shows, so that reports of other runs are not overwritten), else,
// for several runs, ./report.html.
std::string report_file(const ReportOptions& options);

// Writes the report atomically (a temporary file renamed into place), so a
// failed report leaves any earlier file at `out` as it was. Bad input throws
// InputError (exit 2) naming the path and what to pass instead.
int run_report_command(const ReportOptions& options, std::ostream& out, std::ostream& err);

struct LsOptions {
  std::string dir = "runs";
  bool json = false;
  bool names = false;  // the run names alone, each once
};

// One line per run under `dir`, newest first; with json an array of objects.
int run_ls_command(const LsOptions& options, std::ostream& out, std::ostream& err);

}  // namespace runner
