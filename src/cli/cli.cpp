#include "cli/cli.h"
#include "registry/registry.h"
#include <cstdio>
namespace runner {
int cli_main(int, char**) { std::printf("%zu\n", registry().names(Kind::Scheduler).size()); return 0; }
}  // namespace runner
