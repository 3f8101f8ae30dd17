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

}  // namespace

void sweep_file(std::string_view bytes) {
  static const std::string base = write_scratch("base.toml", kBase);
  bool toml = bytes.find('=') != std::string_view::npos;
  std::string path = write_scratch(toml ? "sweep.toml" : "sweep.yaml", bytes);
  refusing_is_fine([&] {
    SweepLoad load = load_sweep_file(path);
    if (!load.sweep) return;
    expand_sweep(*load.sweep);
  });
}

}  // namespace runner::fuzz
