// One HTTP request through libcurl, with the bounded timeouts every Hub and
// dataset request uses. Errors are returned, not thrown: the caller knows what
// was being fetched and says so.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace runner::hub {

struct HttpRequest {
  std::string url;
  std::string method;  // empty: GET (or HEAD with `head`); "POST", "PUT" send `body`
  std::string body;
  bool head = false;
  bool follow_redirects = true;
  std::vector<std::string> headers;  // "Name: value"
  long long range_from = 0;          // > 0 asks for "Range: bytes=N-"
  long timeout_s = 10;  // to connect, and the longest stretch with no byte received
  long total_timeout_ms = 0;  // > 0: the whole request, however the bytes trickle in
  size_t max_body_bytes = 0;  // > 0: a longer answer is cut off, counted as it arrives
  std::function<bool()> should_stop;  // asked about once a second; true abandons the request
  std::function<bool(const char* data, size_t size)> on_body;  // returns false to stop; unset: keep in body
  std::function<void(long long received, long long total)> on_progress;
};

struct HttpResponse {
  long status = 0;  // 0 when no HTTP answer came
  std::map<std::string, std::string> headers;  // of the last answer, names lower-cased
  std::string body;
  std::string transport_error;  // what went wrong below HTTP; empty when an answer came whole
  bool timed_out = false;
  bool host_unknown = false;  // the host's name did not resolve: no network, or a wrong name
  int tries = 1;              // requests made, retries included
  bool stopped_by_caller = false;
  bool too_large = false;  // the answer passed max_body_bytes

  std::string header(const std::string& lower_case_name) const;
};

HttpResponse http_fetch(const HttpRequest& request);

}  // namespace runner::hub
