#include "parallel/worker_lifetime.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace runner {

void die_with_launcher(pid_t launcher) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The launcher may have died between fork and prctl: then nothing would fire.
  if (getppid() != launcher) raise(SIGKILL);
}

}  // namespace runner
