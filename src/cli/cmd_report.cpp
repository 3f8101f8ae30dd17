// `runner report` and `runner ls`: argument handling only; the commands
// themselves are report/report_command.h.
#include "cli/commands.h"

#include "cli/run_names.h"
#include "report/report_command.h"

#include <iostream>

namespace runner {

int cmd_report(const ParsedArgs& args) {
  ReportOptions o;
  for (const auto& path : args.positionals()) o.paths.push_back(run_dir_argument(path, std::cerr));
  o.out = args.get("--out", o.out);
  return run_report_command(o, std::cout, std::cerr);
}

int cmd_ls(const ParsedArgs& args) {
  LsOptions o;
  o.dir = args.positional(0, o.dir);
  o.json = args.has("--json");
  return run_ls_command(o, std::cout, std::cerr);
}

}  // namespace runner
