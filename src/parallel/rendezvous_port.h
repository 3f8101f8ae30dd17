// The TCP port of the rendezvous store that rank 0 hosts. Two launches on one
// machine must not meet at the same port: the second one's store fails to bind
// (LibTorch then prints glog's "Address already in use" and a c10 trace), and
// its workers may join the first launch's store and break that run too.
#pragma once

#include <optional>
#include <string>

namespace runner {

// A port that is free on `addr` now (the kernel's pick, as torchrun --standalone
// does); nullopt when no socket can be bound there.
std::optional<int> free_port(const std::string& addr);

// Whether a store could listen on addr:port now. Only the first two refusals are
// certain: another answer (an address of another machine) is left to the store.
enum class PortState { Free, InUse, Forbidden, Unknown };
PortState port_state(const std::string& addr, int port);

}  // namespace runner
