#include "hub/http_client.h"

#include "runner_build_config.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>
#include <mutex>

namespace runner::hub {
namespace {

struct Transfer {
  CURL* curl;
  const HttpRequest* request;
  HttpResponse* response;
  size_t received = 0;
};

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t first = 0;
  while (first < s.size() && std::isspace(static_cast<unsigned char>(s[first]))) ++first;
  return s.substr(first);
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) t->response->headers.clear();  // a redirect's next answer
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    t->response->headers[name] = trim(line.substr(colon + 1));
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->received += size * count;
  if (t->request->max_body_bytes > 0 && t->received > t->request->max_body_bytes) {
    t->response->too_large = true;
    return 0;
  }
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  // Error pages go to memory (a few KB kept for the message), never to the caller's sink.
  if (status >= 300) {
    if (t->response->body.size() < 65536) t->response->body.append(data, size * count);
    return size * count;
  }
  if (!t->request->on_body) {
    t->response->body.append(data, size * count);
    return size * count;
  }
  if (!t->request->on_body(data, size * count)) {
    t->response->stopped_by_caller = true;
    return 0;
  }
  return size * count;
}

int on_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->request->on_progress) t->request->on_progress(now, total);
  if (t->request->should_stop && t->request->should_stop()) {
    t->response->stopped_by_caller = true;
    return 1;  // libcurl ends the transfer with CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

void set_options(CURL* c, const HttpRequest& r, Transfer& t, curl_slist* headers) {
  curl_easy_setopt(c, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_NOBODY, r.head ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, r.follow_redirects ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "runner/" RUNNER_VERSION);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, r.timeout_s);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);  // less than a byte a second ...
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, r.timeout_s);  // ... for this long: give up
  if (r.head) curl_easy_setopt(c, CURLOPT_TIMEOUT, 2 * r.timeout_s);
  if (r.total_timeout_ms > 0) curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, r.total_timeout_ms);
  if (!r.method.empty()) {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, r.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(r.body.size()));
  }
  if (r.range_from > 0) curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, curl_off_t(r.range_from));
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, r.on_progress || r.should_stop ? 0L : 1L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
}

// What went wrong below HTTP, in our words rather than libcurl's.
std::string describe_transport_failure(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST: return "the host name could not be resolved";
    case CURLE_COULDNT_RESOLVE_PROXY: return "the proxy's host name could not be resolved";
    case CURLE_COULDNT_CONNECT: return "nothing accepted the connection";
    case CURLE_OPERATION_TIMEDOUT: return "the server stopped sending";
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING: return "the connection dropped before the answer was complete";
    case CURLE_SEND_ERROR: return "the request could not be sent";
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION: return "the TLS connection failed (certificate or protocol)";
    case CURLE_TOO_MANY_REDIRECTS: return "the server redirected more than 10 times";
    case CURLE_WRITE_ERROR: return "the received bytes could not be stored";
    default: return "the transfer failed (libcurl code " + std::to_string(static_cast<int>(rc)) + ")";
  }
}

// The request's own limits come first: they say what was cut short and why.
std::string transport_problem(CURLcode rc, const HttpRequest& request, const HttpResponse& response) {
  if (response.too_large) return "the answer was longer than " + std::to_string(request.max_body_bytes) + " bytes";
  if (response.stopped_by_caller && rc == CURLE_ABORTED_BY_CALLBACK) return "the request was abandoned";
  if (rc == CURLE_OPERATION_TIMEDOUT && request.total_timeout_ms > 0) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", request.total_timeout_ms / 1000.0);
    return std::string("no whole answer within ") + seconds + " s";
  }
  return describe_transport_failure(rc);
}

}  // namespace

std::string HttpResponse::header(const std::string& lower_case_name) const {
  auto it = headers.find(lower_case_name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse http_fetch(const HttpRequest& request) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpResponse response;
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const auto& h : request.headers) headers.reset(curl_slist_append(headers.release(), h.c_str()));
  // The Hub's metadata headers describe the bytes as stored: ask for no compression.
  headers.reset(curl_slist_append(headers.release(), "Accept-Encoding: identity"));
  Transfer t{curl.get(), &request, &response};
  set_options(curl.get(), request, t, headers.get());
  CURLcode rc = curl_easy_perform(curl.get());
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &response.status);
  if (rc != CURLE_OK || response.too_large) {
    response.transport_error = transport_problem(rc, request, response);
    response.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    response.host_unknown = rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY;
  }
  return response;
}

}  // namespace runner::hub
