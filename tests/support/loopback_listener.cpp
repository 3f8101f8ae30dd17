#include "loopback_listener.h"

#include "shared.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace runner::test {

// How often the acceptor looks at the stop flag while no client connects.
constexpr int kPollMs = 20;

LoopbackListener::LoopbackListener(Handler handler, const std::string& who) : handler_(std::move(handler)) {
  listen_fd_ = bound_loopback_socket(port_);
  if (listen_fd_ < 0 || ::listen(listen_fd_, 64) != 0) {
    if (listen_fd_ >= 0) ::close(listen_fd_);
    throw std::runtime_error(who + ": cannot listen on 127.0.0.1");
  }
  acceptor_ = std::thread([this] { accept_loop(); });
}

LoopbackListener::~LoopbackListener() {
  stop_ = true;
  acceptor_.join();
  for (auto& c : connections_) c.join();  // no other thread adds one now
  ::close(listen_fd_);
}

void LoopbackListener::accept_loop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, kPollMs) <= 0) continue;
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    connections_.emplace_back([this, fd] {
      handler_(fd);
      ::close(fd);
    });
  }
}

}  // namespace runner::test
