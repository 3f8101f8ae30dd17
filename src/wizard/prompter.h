// Questions on a terminal, one line each, with a default taken on Enter and the
// question asked again after an answer that does not fit (saying why).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace runner {

class Prompter {
 public:
  Prompter(std::istream& in, std::ostream& out) : in_(in), out_(out) {}

  // One of `choices` by number or by name; `fallback` on Enter.
  std::string choice(const std::string& question, const std::vector<std::string>& choices,
                     const std::string& fallback);
  // A free answer; `accept` returns "" for a good one, otherwise why it is not.
  std::string text(const std::string& question, const std::string& fallback,
                   const std::function<std::string(const std::string&)>& accept);
  long long integer(const std::string& question, long long fallback, long long lo, long long hi);
  // A decimal number above `lo` (exclusive) and at most `hi`, such as 0.5.
  double number(const std::string& question, double fallback, double lo, double hi);
  bool yes_no(const std::string& question, bool fallback);

  // Standard input ended (Ctrl-D): the caller stops without writing anything.
  struct Closed {};

 private:
  std::string read_line();
  std::istream& in_;
  std::ostream& out_;
};

}  // namespace runner
