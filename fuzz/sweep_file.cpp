// A sweep file as `runner sweep --dry-run` reads it: the file and its checks,
// then the expansion into points. Written as .toml, or as .yaml when it has no
// '=' (TOML cannot say anything without one).
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "sweep/expand.h"
#include "sweep/sweep_file.h"

namespace runner::fuzz {
namespace {

constexpr std::string_view kBase = "[run]\nname = \"fuzz\"\n[data]\ndataset = \"glue/mrpc\"\n";

// Issue 15 item 11: the expansion is not yet bounded, so a 12-axis grid would
// hold the fuzzer for minutes. Under libFuzzer, grids past this stay unexpanded.
constexpr double kMaxPointsExpanded = 4096;

double point_count(const SweepFile& s) {
  double n = 1;
  for (const auto& axis : s.grid) n *= static_cast<double>(axis.values.size());
  return n + static_cast<double>(s.points.size()) + (s.zip.empty() ? 0 : s.zip.front().values.size());
}

}  // namespace

void sweep_file(std::string_view bytes) {
  static const std::string base = write_scratch("base.toml", kBase);
  bool toml = bytes.find('=') != std::string_view::npos;
  std::string path = write_scratch(toml ? "sweep.toml" : "sweep.yaml", bytes);
  refusing_is_fine([&] {
    SweepLoad load;
    try {
      load = load_sweep_file(path);
    } catch (const nlohmann::json::exception&) {
      // Issue 15 item 8: an empty file or `base = 5` escapes as a raw type_error.302.
      // libFuzzer runs the empty input first, so this would end every run at once.
      if (skip_known_open()) return;
      throw;
    }
    if (!load.sweep) return;
    if (skip_known_open() && point_count(*load.sweep) > kMaxPointsExpanded) return;
    expand_sweep(*load.sweep);
  });
}

}  // namespace runner::fuzz
