// SIGINT/SIGTERM/SIGHUP: the trainer finishes the step in progress, checkpoints
// and exits 130/143/129. The handler only records the signal -- except while
// exit_on_interrupt(true) is in force (a run's setup, whose reads and opens may
// block on a pipe or a hung filesystem and would never look at the flag): then
// the process ends at once with 128 + signal. (SIGPIPE is ignored for the whole
// process from cli_main on.)
#pragma once

namespace runner {

void install_interrupt_handlers();
void exit_on_interrupt(bool on);
int pending_interrupt();            // the signal number received, 0 if none
int interrupt_count();              // SIGINT/SIGTERM/SIGHUP received so far: a second one insists
void clear_interrupt();
int interrupt_exit_code(int signal);  // 128 + signal: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP

}  // namespace runner
