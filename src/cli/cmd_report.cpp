// `runner report` and `runner ls`: argument handling only; the commands
// themselves are report/report_command.h.
#include "cli/commands.h"

#include "cli/run_names.h"
#include "report/report_command.h"
#include "util/utf8.h"

#include <fmt/format.h>

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

int cmd_ls(const ParsedArgs& args) {
  LsOptions o;
  o.dir = runs_folder_argument(args.positional(0, ""));
  o.json = args.has("--json");
  o.names = args.has("--names");
  return run_ls_command(o, std::cout, std::cerr);
}

}  // namespace runner
