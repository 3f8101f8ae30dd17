#include "run/run_options.h"

#include "recipe/sections.h"

namespace runner {
namespace {

OptionBinding<RunSettings> declare_run_options() {
  using R = RunSettings;
  OptionBinding<R> b;
  b.bind(opt::text("name", "",
                   "Run name, one folder name under output_dir; empty means the recipe file's name "
                   "without extension"),
         &R::name);
  b.bind(opt::integer("seed", 42, "Seed for every random stream (init, dropout, data order)")
             .at_least(0),
         &R::seed);
  b.bind(opt::text("output_dir", "runs", "Directory under which run directories are created"),
         &R::output_dir);
  b.bind_choice(opt::choice("device", {}, "auto",
                            "Where to train: auto picks CUDA when this build and machine have it"),
                &R::device,
                {{"auto", DeviceChoice::Auto}, {"cpu", DeviceChoice::Cpu}, {"cuda", DeviceChoice::Cuda}});
  // Above the CPUs this process may use, validate warns and the run clamps; the
  // fixed maximum keeps nonsense out of every machine's schema.
  b.bind(opt::integer("threads", 0,
                      "Intra-op CPU threads; 0 means every CPU this process may use (more are clamped to that)")
             .at_least(0)
             .at_most(1024),
         &R::threads);
  b.bind(opt::flag("deterministic", false, "Use LibTorch's deterministic algorithms only"),
         &R::deterministic);
  b.bind(opt::strings("loggers", {"console", "jsonl"}, "Logger components that receive events"),
         &R::loggers);
  return b;
}

}  // namespace

const OptionBinding<RunSettings>& run_options() {
  static const OptionBinding<RunSettings> options = declare_run_options();
  return options;
}

RunSettings run_settings_from(const nlohmann::json& run_section) {
  return run_options().decode(run_section);
}

SectionSpec run_section() {
  SectionSpec s;
  s.name = "run";
  s.doc = "What the run is called, where it writes, how it is seeded and where it runs";
  s.options = run_options().specs();
  return s;
}

}  // namespace runner
