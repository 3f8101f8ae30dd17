// Diagnostics: the error values used at the edges (recipes, files, flags).
// Every message says where (file:line:col or the flag), which key, what was
// expected and what was found.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace runner {

// Where a value came from: a file position, or a command-line origin such as
// "--set optimizer.lr=3e-5" (then file is empty).
struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based, 0 = unknown
  int column = 0;  // 1-based, 0 = unknown
  std::string origin;

  bool known() const { return !file.empty() || !origin.empty(); }
  std::string str() const;  // "file:line:col" or the origin
};

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLocation where;
  std::string key_path;  // "optimizer.lr"; empty when not about a key
  std::string message;   // what was expected and what was found
  std::string hint;      // the likely fix; may be empty

  std::string format() const;
};

using Diagnostics = std::vector<Diagnostic>;

bool has_errors(const Diagnostics& diags);
// One diagnostic a line (with its hint), the first 50; past them, how many more.
std::string format_all(const Diagnostics& diags);

Diagnostic make_error(SourceLocation where, std::string key_path, std::string message,
                      std::string hint = {});

// A library error's message without the C++ backtrace that LibTorch (c10)
// appends ("Exception raised from ...", "frame #0: ..."): what a user or a
// record is shown of an unexpected exception.
std::string without_backtrace(const std::string& what);

// Bad user input found past the edges (a data row, a checkpoint, a weight file).
// main() turns it into its message and exit code 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(Diagnostic d);
  explicit InputError(const std::string& message);
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

}  // namespace runner
