// Whether this executable links LibTorch. The full runner (runner-torch), the
// tests and the benches do: src/cli/build_info.cpp says true. The front, `runner`,
// links src/front/ in runner_torch's place, which says false; it hands what needs
// LibTorch (a command marked so in src/cli/commands.cpp, a recipe's plugins) to the
// full runner (src/cli/full_runner.h).
#pragma once

namespace runner {

bool links_torch();

}  // namespace runner
