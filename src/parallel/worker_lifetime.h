// A worker that `runner launch` started must not outlive it: when a node's
// launcher is killed (the machine is lost, or someone SIGKILLs it), its workers
// go too, so the ranks on the other nodes see them gone at their next
// collective and stop with an error naming them, instead of training on with
// orphans that nobody watches. Torch-free.
#pragma once

#include <sys/types.h>

namespace runner {

// Called in a freshly forked worker, before exec: the kernel SIGKILLs it when
// `launcher` (the pid that forked it) ends. SIGKILL rather than SIGTERM: a
// graceful stop would checkpoint, a collective the lost node cannot finish.
void die_with_launcher(pid_t launcher);

}  // namespace runner
