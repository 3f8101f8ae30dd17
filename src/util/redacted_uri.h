// A URI as it may be shown or recorded: tracking and Hub endpoints are often
// given with a password ("http://user:secret@host") or a token in the query
// ("?token=..."), and a warning, a log line or a record in the run directory
// must not carry them.
#pragma once

#include <string>
#include <string_view>

namespace runner {

// `uri` with the user information before the host written as "***@" and the
// query and fragment as "?***"; a text with no "scheme://" has only its query
// and fragment hidden. Control characters are escaped as terminal_safe does.
std::string redacted_uri(std::string_view uri);

}  // namespace runner
