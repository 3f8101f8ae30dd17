#include "train/interrupt.h"

#include <csignal>

namespace runner {
namespace {
volatile std::sig_atomic_t g_signal = 0;
extern "C" void record_signal(int sig) { g_signal = sig; }
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int pending_interrupt() { return g_signal; }
void clear_interrupt() { g_signal = 0; }
int interrupt_exit_code(int signal) { return 128 + signal; }

}  // namespace runner
