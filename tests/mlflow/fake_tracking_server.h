// A stand-in for an MLflow tracking server on 127.0.0.1, for the tests of what
// the mlflow logger does with answers a real server would not give: each
// request's answer comes from a function the test writes, and an answer may
// be streamed (a huge body) or trickled (a byte at a time, forever). It logs
// every request and counts the body bytes it sent; it stops with the object.
#pragma once

#include "loopback_listener.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace runner::test {

struct TrackingAnswer {
  TrackingAnswer(int status_ = 200, std::string body_ = "", std::vector<std::string> headers_ = {},
                 size_t streamed_bytes_ = 0, int trickle_ms_ = 0)
      : status(status_), body(std::move(body_)), headers(std::move(headers_)),
        streamed_bytes(streamed_bytes_), trickle_ms(trickle_ms_) {}
  int status;
  std::string body;
  std::vector<std::string> headers;  // "Name: value"
  size_t streamed_bytes;  // > 0: `body` is repeated to this many bytes (Content-Length says so)
  int trickle_ms;         // > 0: one byte of `body` per this many ms, the body never ending
};

struct TrackingRequest {
  std::string method, path, body;
};

class FakeTrackingServer {
 public:
  using Route = std::function<TrackingAnswer(const TrackingRequest&)>;
  explicit FakeTrackingServer(Route route);
  ~FakeTrackingServer();
  FakeTrackingServer(const FakeTrackingServer&) = delete;
  FakeTrackingServer& operator=(const FakeTrackingServer&) = delete;

  std::string url() const;  // http://127.0.0.1:PORT
  std::string host_port() const;  // 127.0.0.1:PORT
  std::vector<std::string> requests() const;  // "METHOD path"
  size_t body_bytes_sent() const { return sent_; }

 private:
  void serve(int fd);
  bool read_request(int fd, TrackingRequest& request);
  void answer(int fd, const TrackingAnswer& a);
  bool send_bytes(int fd, const char* data, size_t size);

  Route route_;
  std::atomic<size_t> sent_{0};
  mutable std::mutex mutex_;
  std::vector<std::string> log_;
  LoopbackListener listener_;  // last: stopped (its handlers joined) before the rest goes
};

// What a real tracking server answers to the logger's calls: an experiment,
// a run whose artifacts the server proxies, and {} to the rest.
TrackingAnswer well_behaved_tracking(const TrackingRequest& request);

}  // namespace runner::test
