// The full runner, runner-torch: the executable that links LibTorch. The front,
// `runner`, hands it every command that needs LibTorch (cli/args.h, Needs), and
// a recipe's plugins, which resolve its symbols (registry/plugin.h).
#pragma once

#include <string>
#include <vector>

namespace runner {

// runner-torch in the folder of this executable's real path, so that a link to
// the front on PATH (scripts/setup.sh) finds the one beside the real binary;
// "" when that folder cannot be known (no /proc).
std::string full_runner_path();

// In the full runner: forgets that a front handed it the command. In a front
// that a front handed a command to (a copy of the front in runner-torch's
// place): says so, exit 2, instead of handing it on again forever. kExitOk
// when the command goes on.
int refuse_front_in_full_runners_place();

// Replaces this process with the full runner, given `argv` as this process got
// it (argv[0] too) and the same standard input: what the front has read of it
// already (a recipe from `-`) is handed over first. Returns only when the exec
// failed or was refused (no folder of its own known, or runner-torch is this
// front itself), having said why; the exit code.
int hand_to_full_runner(const std::vector<std::string>& argv);

}  // namespace runner
