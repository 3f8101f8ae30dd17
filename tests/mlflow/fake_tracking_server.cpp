#include "fake_tracking_server.h"

#include "shared.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace runner::test {
namespace {

constexpr int kPollMs = 20;  // how often a waiting read looks at the stop flag

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The value of a header in a raw request head, "" when absent.
std::string header_value(const std::string& head, const std::string& lower_name) {
  std::string l = lower(head);
  size_t at = l.find("\r\n" + lower_name + ":");
  if (at == std::string::npos) return "";
  size_t start = at + 3 + lower_name.size();
  size_t end = head.find("\r\n", start);
  std::string v = head.substr(start, end - start);
  v.erase(0, v.find_first_not_of(' '));
  return v;
}

}  // namespace

FakeTrackingServer::FakeTrackingServer(Route route)
    : route_(std::move(route)), listener_([this](int fd) { serve(fd); }, "fake tracking server") {}

FakeTrackingServer::~FakeTrackingServer() = default;

std::string FakeTrackingServer::host_port() const { return "127.0.0.1:" + std::to_string(listener_.port()); }
std::string FakeTrackingServer::url() const { return "http://" + host_port(); }

std::vector<std::string> FakeTrackingServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_;
}

// One request per connection: "Connection: close" on every answer.
void FakeTrackingServer::serve(int fd) {
  TrackingRequest request;
  if (!read_request(fd, request)) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    log_.push_back(request.method + " " + request.path);
  }
  answer(fd, route_(request));
}

bool FakeTrackingServer::read_request(int fd, TrackingRequest& request) {
  std::string raw;
  char buffer[65536];
  size_t head_end = std::string::npos, wanted = 0;
  bool continued = false;
  while (!listener_.stopping()) {
    if (head_end != std::string::npos && raw.size() >= head_end + 4 + wanted) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kPollMs) <= 0) continue;
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    raw.append(buffer, static_cast<size_t>(n));
    if (head_end != std::string::npos || (head_end = raw.find("\r\n\r\n")) == std::string::npos) continue;
    std::string head = raw.substr(0, head_end);
    std::string length = header_value(head, "content-length");
    wanted = length.empty() ? 0 : std::stoul(length);
    if (!continued && lower(header_value(head, "expect")) == "100-continue") {
      continued = send_bytes(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
    }
    size_t space = head.find(' ');
    request.method = head.substr(0, space);
    request.path = head.substr(space + 1, head.find(' ', space + 1) - space - 1);
  }
  if (head_end == std::string::npos) return false;
  request.body = raw.substr(head_end + 4);
  return true;
}

bool FakeTrackingServer::send_bytes(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size && !listener_.stopping()) {
    ssize_t n = ::send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n <= 0) return false;  // the client went away
    done += static_cast<size_t>(n);
  }
  return done == size;
}

void FakeTrackingServer::answer(int fd, const TrackingAnswer& a) {
  size_t length = a.streamed_bytes > 0 ? a.streamed_bytes : a.body.size();
  std::string head = "HTTP/1.1 " + std::to_string(a.status) + " Answer\r\nConnection: close\r\n";
  for (const auto& h : a.headers) head += h + "\r\n";
  if (a.trickle_ms == 0) head += "Content-Length: " + std::to_string(length) + "\r\n";
  head += "\r\n";
  if (!send_bytes(fd, head.data(), head.size())) return;
  if (a.trickle_ms > 0) {
    for (size_t i = 0; !listener_.stopping() && !a.body.empty(); ++i) {
      if (!send_bytes(fd, &a.body[i % a.body.size()], 1)) return;
      ++sent_;
      std::this_thread::sleep_for(std::chrono::milliseconds(a.trickle_ms));
    }
    return;
  }
  for (size_t done = 0; done < length && !listener_.stopping();) {
    size_t n = std::min(a.body.size(), length - done);
    if (!send_bytes(fd, a.body.data(), n)) return;
    done += n;
    sent_ += n;
  }
}

TrackingAnswer well_behaved_tracking(const TrackingRequest& request) {
  if (request.path.find("experiments/get-by-name") != std::string::npos)
    return {200, R"({"experiment":{"experiment_id":"7","name":"x"}})"};
  if (request.path.find("runs/create") != std::string::npos)
    return {200, R"({"run":{"info":{"run_id":"r1","artifact_uri":"mlflow-artifacts:/7/r1/artifacts"}}})"};
  return {200, "{}"};
}

}  // namespace runner::test
