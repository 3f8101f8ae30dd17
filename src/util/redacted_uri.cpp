#include "util/redacted_uri.h"

#include "util/utf8.h"

namespace runner {

std::string redacted_uri(std::string_view uri) {
  std::string out(uri);
  size_t hidden = out.find_first_of("?#");
  if (hidden != std::string::npos) out = out.substr(0, hidden) + "?***";
  size_t scheme_end = out.find("://");
  if (scheme_end != std::string::npos) {
    size_t host_start = scheme_end + 3;
    size_t authority_end = out.find_first_of("/?", host_start);
    if (authority_end == std::string::npos) authority_end = out.size();
    // The last '@' of the authority ends the user information (a password may hold '@').
    size_t at = out.rfind('@', authority_end == 0 ? 0 : authority_end - 1);
    if (at != std::string::npos && at >= host_start && at < authority_end)
      out = out.substr(0, host_start) + "***" + out.substr(at);
  }
  return terminal_safe(out);
}

}  // namespace runner
