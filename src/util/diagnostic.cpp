#include "util/diagnostic.h"

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

std::string Diagnostic::format() const {
  std::string out;
  if (where.known()) out += where.str() + ": ";
  out += severity == Severity::Error ? "error: " : "warning: ";
  if (!key_path.empty()) out += key_path + ": ";
  out += message;
  if (!hint.empty()) out += "\n  hint: " + hint;
  return out;
}

bool has_errors(const Diagnostics& diags) {
  for (const auto& d : diags)
    if (d.severity == Severity::Error) return true;
  return false;
}

std::string format_all(const Diagnostics& diags) {
  std::string out;
  for (const auto& d : diags) out += d.format() + "\n";
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
