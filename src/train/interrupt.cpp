#include "train/interrupt.h"

#include <csignal>
#include <mutex>
#include <thread>

#include <pthread.h>
#include <unistd.h>

namespace runner {
namespace {
volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_exit_now = 0;
volatile std::sig_atomic_t g_count = 0;
extern "C" void record_signal(int sig) {
  if (g_exit_now) _exit(128 + sig);  // async-signal-safe; a blocked setup read never returns
  g_signal = sig;
  g_count = g_count + 1;
}

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

// The thread the kernel hands the signals to: it computes nothing, so the
// handler's frame goes on a stack of its own.
void start_listener() {
  std::thread([] {
    const sigset_t set = interrupt_signals();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    for (;;) pause();
  }).detach();
}
}  // namespace

void install_interrupt_handlers() {
  static std::once_flag listener;
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // A dropped ssh session or closed terminal: stopped as a scheduler's SIGTERM stops
  // a run (checkpoint, end line, summary), not ended mid-write by the default action.
  sigaction(SIGHUP, &sa, nullptr);
  std::call_once(listener, start_listener);
  const sigset_t set = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void unblock_interrupts_here() {
  const sigset_t set = interrupt_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void interrupt_self(int signal) {
  const int before = g_count;
  kill(getpid(), signal);
  for (int waited_ms = 0; g_count == before && waited_ms < 5000; ++waited_ms) usleep(1000);
}

void exit_on_interrupt(bool on) {
  g_exit_now = on ? 1 : 0;
  if (on && g_signal) _exit(128 + g_signal);  // one already arrived
}

int pending_interrupt() { return g_signal; }
int interrupt_count() { return g_count; }
void clear_interrupt() { g_signal = 0; }
int interrupt_exit_code(int signal) { return 128 + signal; }

}  // namespace runner
