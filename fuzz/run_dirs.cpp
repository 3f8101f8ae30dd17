// A run directory as `runner report` and `runner ls` read it back. The input
// is cut at NUL bytes into summary.json, env.json, recipe.resolved.json,
// metrics.jsonl and the sweep_summary.json of the folder above it; then ls
// (table and --json), the run's report and the sweep's report.
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "report/report_command.h"

#include <filesystem>
#include <sstream>

namespace runner::fuzz {
namespace fs = std::filesystem;

void run_dirs(std::string_view bytes) {
  static const char* const kFiles[] = {"summary.json", "env.json", "recipe.resolved.json", "metrics.jsonl",
                                       "../sweep_summary.json"};
  const std::string runs = scratch_dir() + "/runs", run = "runs/demo/20260102T030405Z-aaaaaa";
  fs::remove_all(runs);
  size_t start = 0;
  for (const char* name : kFiles) {
    if (start > bytes.size()) break;
    size_t end = std::min(bytes.find('\0', start), bytes.size());
    write_scratch(run + "/" + name, bytes.substr(start, end - start));
    start = end + 1;
  }
  std::ostringstream out, err;
  refusing_is_fine([&] { run_ls_command({runs, false}, out, err); });
  refusing_is_fine([&] { run_ls_command({runs, true}, out, err); });
  refusing_is_fine([&] { run_report_command({{scratch_dir() + "/" + run}, scratch_dir() + "/r.html"}, out, err); });
  refusing_is_fine([&] { run_report_command({{runs + "/demo"}, scratch_dir() + "/s.html"}, out, err); });
}

}  // namespace runner::fuzz
