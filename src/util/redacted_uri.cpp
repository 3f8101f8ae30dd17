#include "util/redacted_uri.h"

#include "util/utf8.h"

#include <algorithm>

namespace runner {

// The user information is found before the query is cut: a password typed with
// a raw '?' or '#' ("http://alice:pa#ss@host") would otherwise end the text
// early and leave "alice:pa" shown. A text with no scheme ("alice:pw@host:5000")
// is an authority from its first character.
std::string redacted_uri(std::string_view uri) {
  std::string out(uri);
  const size_t scheme_end = out.find("://");
  size_t host_start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  // The authority ends at the path's '/'; its last '@' ends the user information
  // (a password may hold '@', '?' or '#').
  const size_t authority_end = std::min(out.find('/', host_start), out.size());
  const size_t at = out.rfind('@', authority_end == 0 ? 0 : authority_end - 1);
  if (at != std::string::npos && at >= host_start && at < authority_end) {
    out = out.substr(0, host_start) + "***" + out.substr(at);
    host_start += 3;  // "***" ends before the '@'
  }
  const size_t hidden = out.find_first_of("?#", host_start);
  if (hidden != std::string::npos) out = out.substr(0, hidden) + "?***";
  return terminal_safe(out);
}

}  // namespace runner
