// SIGINT/SIGTERM: the trainer finishes the step in progress, checkpoints and
// exits 130/143. The handler only records the signal.
#pragma once

namespace runner {

void install_interrupt_handlers();
int pending_interrupt();            // the signal number received, 0 if none
void clear_interrupt();
int interrupt_exit_code(int signal);  // 128 + signal: 130 for SIGINT, 143 for SIGTERM

}  // namespace runner
