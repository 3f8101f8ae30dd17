// What a failed request means to the user (a login, a typo in a name, a server
// down), and the bounded retries for failures that may pass.
#pragma once

#include "hub/http_client.h"
#include "hub/hub_settings.h"

#include <string>

namespace runner::hub {

// A 5xx or 429 answer, or a connection that failed, dropped or stalled.
bool is_retriable(const HttpResponse& response);

// Sleeps before try number `next_try` (2, 3, ...): first_backoff_ms, doubled each time.
void back_off(const HubSettings& settings, int next_try);

// `request` sent until it gets an answer that is not retriable, at most
// settings.max_tries times. The last answer is returned, whatever it is.
HttpResponse fetch_with_retries(const HttpRequest& request, const HubSettings& settings);

// InputError (exit 2) for a failed answer about `what` ("bert-base-uncased: vocab.txt"),
// naming the URL, the status or transport failure, and the fix. A download from
// elsewhere than the Hub names `mirror_variable`, the variable that points it,
// instead of HF_ENDPOINT.
[[noreturn]] void throw_request_error(const std::string& what, const std::string& url,
                                      const HttpResponse& response, const HubSettings& settings,
                                      const std::string& mirror_variable = "");

}  // namespace runner::hub
