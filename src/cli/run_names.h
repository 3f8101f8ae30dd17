// A run named the way a user remembers it. `runner resume`, `report`, `export`
// and `compare` take a run directory, and also `runs/NAME` (the folder of one
// run name's runs) or a bare NAME under ./runs, meaning that name's newest run.
#pragma once

#include <iosfwd>
#include <string>

namespace runner {

// `arg` itself when it is a run directory or names nothing this resolves; else
// the newest run directory it stands for, said on `err` so that the user sees
// which run was taken.
std::string run_dir_argument(const std::string& arg, std::ostream& err);

}  // namespace runner
