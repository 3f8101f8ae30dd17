#pragma once

namespace runner {
// The whole command line: parses, dispatches to a command, returns the exit code.
int cli_main(int argc, char** argv);
}  // namespace runner
