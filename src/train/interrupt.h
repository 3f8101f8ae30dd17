// SIGINT/SIGTERM/SIGHUP: the trainer finishes the step in progress, checkpoints
// and exits 130/143/129. The handler only records the signal -- except while
// exit_on_interrupt(true) is in force (a run's setup, whose reads and opens may
// block on a pipe or a hung filesystem and would never look at the flag): then
// the process ends at once with 128 + signal. (SIGPIPE is ignored for the whole
// process from cli_main on.)
//
// The signals are taken by a listener thread of their own: the thread that
// installs the handlers, and every thread it starts afterwards (OpenMP's, the
// data loader's, the checkpoint writer's), blocks them. oneDNN's sgemm kernels
// point the stack pointer at a heap workspace while they run, and a signal
// handled on such a thread has its frame written below that pointer, over
// other objects on the heap (a parameter list, found corrupt at the next
// checkpoint).
#pragma once

namespace runner {

void install_interrupt_handlers();
// The calling thread takes the three signals again: a session's end in a
// process that goes on (a test binary).
void unblock_interrupts_here();
// Sends `signal` to this process, as a scheduler would, and returns once the
// listener has recorded it (at most 5 s).
void interrupt_self(int signal);
void exit_on_interrupt(bool on);
int pending_interrupt();            // the signal number received, 0 if none
int interrupt_count();              // SIGINT/SIGTERM/SIGHUP received so far: a second one insists
void clear_interrupt();
int interrupt_exit_code(int signal);  // 128 + signal: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP

}  // namespace runner
