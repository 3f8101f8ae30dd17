// `runner report` and `runner ls`: argument handling only; the commands
// themselves are report/report_command.h.
#include "cli/commands.h"

#include "cli/run_names.h"
#include "report/report_command.h"
#include "util/diagnostic.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace runner {

int cmd_report(const ParsedArgs& args) {
  ReportOptions o;
  for (const auto& path : args.positionals()) o.paths.push_back(run_dir_argument(path, std::cerr));
  o.out = args.get("--out", o.out);
  std::string axis = args.get("--x", "step");
  std::optional<XAxis> x_axis = parse_x_axis(axis);
  if (!x_axis) {
    std::cerr << fmt::format("error: --x: expected step, samples, epoch or time, found \"{}\"\n",
                             terminal_safe(axis));
    return kExitBadInput;
  }
  o.x_axis = *x_axis;
  return run_report_command(o, std::cout, std::cerr);
}

// `ls --runs DIR...` without a folder argument lists the first DIR that is a
// folder; when none is, the first, so that the error names what was given
// (a FIFO, a link loop) instead of the default runs/.
std::string folder_of_runs_flags(const std::vector<std::string>& folders) {
  for (const auto& folder : folders) {
    std::error_code ec;
    if (std::filesystem::is_directory(folder, ec)) return folder;
  }
  return folders.front();
}

// `ls ''` would list runs/ and `ls --runs ''` the current folder: neither was asked for.
static void refuse_empty_folders(const ParsedArgs& args) {
  const bool empty_positional = !args.positionals().empty() && args.positionals().front().empty();
  bool empty_runs = false;
  for (const auto& folder : args.all("--runs")) empty_runs = empty_runs || folder.empty();
  if (!empty_positional && !empty_runs) return;
  throw InputError(make_error(SourceLocation{empty_positional ? "''" : "", 0, 0, empty_positional ? "" : "--runs"}, "",
                              "expected a folder of runs, found an empty argument",
                              "name the folder (run.output_dir, default runs/), or leave it out to list the "
                              "default folder"));
}

int cmd_ls(const ParsedArgs& args) {
  refuse_empty_folders(args);
  LsOptions o;
  const std::string given = args.positional(0, "");
  o.dir = given.empty() && args.has("--runs") ? folder_of_runs_flags(args.all("--runs")) : runs_folder_argument(given);
  o.json = args.has("--json");
  o.names = args.has("--names");
  return run_ls_command(o, std::cout, std::cerr);
}

}  // namespace runner
