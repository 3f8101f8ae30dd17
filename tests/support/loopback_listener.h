// A TCP listener on 127.0.0.1 for the tests' fake servers (the Hub, an MLflow
// tracking server): it accepts on a thread of its own and serves each
// connection on another, through the handler it was given, then closes it.
// It stops with the object: no connection is accepted after, and every
// handler has returned before the destructor does. A handler that waits
// (a stalled or trickled answer) asks stopping() to end early.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace runner::test {

class LoopbackListener {
 public:
  using Handler = std::function<void(int fd)>;
  // Throws std::runtime_error naming `who` when no port can be had.
  LoopbackListener(Handler handler, const std::string& who);
  ~LoopbackListener();
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;

  int port() const { return port_; }
  bool stopping() const { return stop_; }

 private:
  void accept_loop();

  Handler handler_;
  int listen_fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<std::thread> connections_;
  std::thread acceptor_;  // last: started once everything it reads exists
};

}  // namespace runner::test
