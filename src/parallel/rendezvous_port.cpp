#include "parallel/rendezvous_port.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace runner {
namespace {

// Binds a listening TCP socket to addr:port (0: any free port); returns the
// port bound, or -errno.
int try_bind(const std::string& addr, int port) {
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  if (getaddrinfo(addr.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found)
    return -EADDRNOTAVAIL;
  int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  int result = -errno;
  if (fd >= 0) {
    // As the store binds: SO_REUSEADDR, so that a port in TIME_WAIT after an
    // earlier run counts as free and only a live listener counts as taken.
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, found->ai_addr, found->ai_addrlen) == 0 && listen(fd, 1) == 0) {
      sockaddr_storage bound{};
      socklen_t len = sizeof bound;
      getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
      result = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                 : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    } else {
      result = -errno;
    }
    close(fd);
  }
  freeaddrinfo(found);
  return result;
}

}  // namespace

std::optional<int> free_port(const std::string& addr) {
  int port = try_bind(addr, 0);
  return port > 0 ? std::optional<int>(port) : std::nullopt;
}

PortState port_state(const std::string& addr, int port) {
  int r = try_bind(addr, port);
  if (r > 0) return PortState::Free;
  if (r == -EADDRINUSE) return PortState::InUse;
  if (r == -EACCES) return PortState::Forbidden;
  return PortState::Unknown;
}

}  // namespace runner
