#include "hub/http_errors.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace runner::hub {
namespace {

std::string login_hint(const HubSettings& s) {
  if (!s.token.empty())
    return "the token in HF_TOKEN (or $HF_HOME/token) was refused: check that it is valid and has "
           "read access; for a gated repository, accept its terms on its page first";
  return "log in: set HF_TOKEN to a read token from https://huggingface.co/settings/tokens (or run "
         "`huggingface-cli login`); for a gated repository, accept its terms on its page first";
}

std::string tries_text(int tries) { return tries == 1 ? "1 try" : fmt::format("{} tries", tries); }

struct Explanation {
  std::string message;
  std::string hint;
};

Explanation explain_status(const HttpResponse& r, const HubSettings& s) {
  std::string code = r.header("x-error-code");
  switch (r.status) {
    case 401:
      return {"401 Unauthorized: the repository is private or gated, or does not exist", login_hint(s)};
    case 403: return {"403 Forbidden: this token may not read the repository (gated or private)", login_hint(s)};
    case 404:
      if (code == "RevisionNotFound")
        return {"404: the repository has no such revision (branch, tag or commit)",
                "check the part after '@', or leave it out for the main branch"};
      if (code == "EntryNotFound")
        return {"404: the repository has no such file", "check the repository's file list on its page"};
      return {"404: no such repository" + std::string(code.empty() ? " or file" : ""),
              "check the spelling of the name (org/name), or set RUNNER_MODELS to a folder that holds it"};
    default: break;
  }
  if (r.status >= 500)
    return {fmt::format("the server answered {} after {}", r.status, tries_text(r.tries)),
            "the server is having trouble: try again later, or use a local copy (RUNNER_MODELS)"};
  return {fmt::format("the server answered {}", r.status), "check the URL and the endpoint (HF_ENDPOINT)"};
}

}  // namespace

bool is_retriable(const HttpResponse& r) {
  // A name that does not resolve means no network (or a mistyped endpoint) far more
  // often than a passing fault: asking again only makes the user wait.
  if (r.stopped_by_caller || r.host_unknown) return false;
  if (!r.transport_error.empty()) return true;
  return r.status >= 500 || r.status == 429;
}

void back_off(const HubSettings& settings, int next_try) {
  long ms = settings.first_backoff_ms << std::min(next_try - 2, 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

HttpResponse fetch_with_retries(const HttpRequest& request, const HubSettings& settings) {
  HttpResponse r = http_fetch(request);
  for (int attempt = 2; attempt <= settings.max_tries && is_retriable(r); ++attempt) {
    back_off(settings, attempt);
    r = http_fetch(request);
    r.tries = attempt;
  }
  return r;
}

void throw_request_error(const std::string& what, const std::string& url, const HttpResponse& r,
                         const HubSettings& s, const std::string& mirror_variable) {
  Explanation e;
  if (r.status == 0 || (!r.transport_error.empty() && r.status < 300)) {
    e.message = r.timed_out
                    ? fmt::format("no answer within {} s ({})", s.timeout_s, tries_text(r.tries))
                    : fmt::format("the connection failed after {} ({})", tries_text(r.tries), r.transport_error);
    e.hint = "check the network and the endpoint (HF_ENDPOINT); on a machine without a network, "
             "fetch on another one with `runner fetch` and set HF_HUB_OFFLINE=1";
  } else {
    e = explain_status(r, s);
  }
  // The Hub's hints (a repository's name, a token) do not apply to a publisher's file.
  if (!mirror_variable.empty() && url.rfind(s.endpoint, 0) != 0) {
    if (size_t at = e.hint.find("(HF_ENDPOINT)"); at != std::string::npos)
      e.hint.replace(at, 13, "(" + mirror_variable + ")");
    else
      e.hint = fmt::format("check the URL: {} replaces the folder it is read from (a mirror); or try again later",
                           mirror_variable);
  }
  throw InputError(make_error(SourceLocation{{}, 0, 0, url}, "", what + ": " + e.message, e.hint));
}

}  // namespace runner::hub
