#include "util/diagnostic.h"

#include "util/utf8.h"

#include <fmt/format.h>

namespace runner {

std::string SourceLocation::str() const {
  if (file.empty()) return origin;
  std::string s = file;
  if (line > 0) s += fmt::format(":{}", line);
  if (line > 0 && column > 0) s += fmt::format(":{}", column);
  if (!origin.empty()) s += fmt::format(" ({})", origin);
  return s;
}

// A message may quote a path, a key or a value from a record, and it goes to a
// terminal: each part is made safe for one.
std::string Diagnostic::format() const {
  auto safe_lines = [](const std::string& text) { return terminal_safe(text, true); };
  std::string out;
  // A place and a key are one line each: a newline in them (a path such as
  // $'dup\nx') is shown escaped, never as a line of its own.
  if (where.known()) out += terminal_safe(where.str()) + ": ";
  out += severity == Severity::Error ? "error: " : "warning: ";
  if (!key_path.empty()) out += terminal_safe(key_path) + ": ";
  out += safe_lines(message);
  if (!hint.empty()) out += "\n  hint: " + safe_lines(hint);
  return out;
}

bool has_errors(const Diagnostics& diags) {
  for (const auto& d : diags)
    if (d.severity == Severity::Error) return true;
  return false;
}

std::string without_backtrace(const std::string& what) {
  std::string out;
  size_t start = 0;
  while (start < what.size()) {
    size_t end = what.find('\n', start);
    std::string line = what.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.rfind("Exception raised from ", 0) == 0 || line.rfind("frame #", 0) == 0) break;
    out += (out.empty() ? "" : "\n") + line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// Past this many, the rest are counted, not printed: 60,000 unknown keys were
// 120,000 lines, and the first fifty show what is wrong.
constexpr size_t kMaxShownDiagnostics = 50;

std::string format_all(const Diagnostics& diags) {
  std::string out;
  for (size_t i = 0; i < diags.size() && i < kMaxShownDiagnostics; ++i) out += diags[i].format() + "\n";
  if (diags.size() > kMaxShownDiagnostics)
    out += fmt::format("... and {} more, {} in all (`runner validate --json` lists every one)\n",
                       diags.size() - kMaxShownDiagnostics, diags.size());
  return out;
}

Diagnostic make_error(SourceLocation where, std::string key_path, std::string message,
                      std::string hint) {
  Diagnostic d;
  d.where = std::move(where);
  d.key_path = std::move(key_path);
  d.message = std::move(message);
  d.hint = std::move(hint);
  return d;
}

InputError::InputError(Diagnostic d) : std::runtime_error(d.format()), diag_(std::move(d)) {}

InputError::InputError(const std::string& message) : std::runtime_error(message) {
  diag_.message = message;
}

}  // namespace runner
