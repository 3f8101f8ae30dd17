#include "recipe/sections.h"

namespace runner {

SectionSpec run_section() {
  SectionSpec s;
  s.name = "run";
  s.doc = "What the run is called, where it writes, how it is seeded and where it runs";
  s.options = {
      opt::text("name", "", "Run name; empty means the recipe file's name without extension"),
      opt::integer("seed", 42, "Seed for every random stream (init, dropout, data order)")
          .at_least(0),
      opt::text("output_dir", "runs", "Directory under which run directories are created"),
      opt::choice("device", {"auto", "cpu", "cuda"}, "auto",
                  "Where to train: auto picks CUDA when this build and machine have it"),
      opt::integer("threads", 0,
                   "Intra-op CPU threads; 0 means every CPU this process may use")
          .at_least(0),
      opt::flag("deterministic", false, "Use LibTorch's deterministic algorithms only"),
      opt::strings("loggers", {"console", "jsonl"}, "Logger components that receive events"),
  };
  return s;
}

}  // namespace runner
