// `runner init`: argument handling only; the wizard is wizard/init_command.h.
#include "cli/commands.h"

#include "wizard/init_command.h"

#include <iostream>
#include <thread>
#include <unistd.h>

namespace runner {

int cmd_init(const ParsedArgs& args) {
  InitOptions o;
  o.path = args.positional(0, o.path);
  o.defaults = args.has("--defaults");
  o.force = args.has("--force");
  o.on_terminal = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
  o.caps = detect_capabilities();
  o.cpus = std::max(1u, std::thread::hardware_concurrency());
  return run_init_command(o, std::cin, std::cout, std::cerr);
}

}  // namespace runner
