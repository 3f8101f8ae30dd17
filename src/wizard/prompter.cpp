#include "wizard/prompter.h"

#include "util/numbers.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <istream>
#include <ostream>

namespace runner {
namespace {

std::string trimmed(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

std::string Prompter::read_line() {
  out_.flush();
  std::string line;
  if (!std::getline(in_, line)) throw Closed{};
  return trimmed(line);
}

std::string Prompter::choice(const std::string& question, const std::vector<std::string>& choices,
                             const std::string& fallback) {
  out_ << question << "\n";
  for (size_t i = 0; i < choices.size(); ++i)
    out_ << fmt::format("  [{}] {}{}\n", i + 1, choices[i], choices[i] == fallback ? " (default)" : "");
  for (;;) {
    out_ << fmt::format("choice [{}]: ", fallback);
    std::string a = read_line();
    if (a.empty()) return fallback;
    if (std::find(choices.begin(), choices.end(), a) != choices.end()) return a;
    char* end = nullptr;
    long n = std::strtol(a.c_str(), &end, 10);
    if (*end == '\0' && n >= 1 && n <= static_cast<long>(choices.size())) return choices[n - 1];
    // An answer is echoed only as visible text: escape sequences in it must not reach the terminal.
    out_ << fmt::format("  \"{}\" is not one of the choices: type a number from 1 to {} or a name\n",
                        terminal_safe(a), choices.size());
  }
}

std::string Prompter::text(const std::string& question, const std::string& fallback,
                           const std::function<std::string(const std::string&)>& accept) {
  for (;;) {
    out_ << fmt::format("{} [{}]: ", question, fallback);
    std::string a = read_line();
    if (a.empty()) a = fallback;
    std::string why = accept(a);
    if (why.empty()) return a;
    out_ << "  " << terminal_safe(why) << "\n";  // `why` quotes the answer
  }
}

long long Prompter::integer(const std::string& question, long long fallback, long long lo, long long hi) {
  std::string a = text(question, std::to_string(fallback), [lo, hi](const std::string& s) {
    char* end = nullptr;
    errno = 0;
    long long n = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE || n < lo || n > hi)
      return fmt::format("\"{}\" is not a whole number from {} to {}", s, lo, hi);
    return std::string();
  });
  return std::strtoll(a.c_str(), nullptr, 10);
}

double Prompter::number(const std::string& question, double fallback, double lo, double hi) {
  std::string a = text(question, fmt::format("{}", fallback), [lo, hi](const std::string& s) {
    std::string why;
    std::optional<double> v = parse_number(s, why, lo, hi);
    if (!v || *v <= lo) return fmt::format("\"{}\" is not a number above {} and at most {}", s, lo, hi);
    return std::string();
  });
  std::string why;
  return *parse_number(a, why, lo, hi);
}

bool Prompter::yes_no(const std::string& question, bool fallback) {
  std::string a = text(question + " (y/n)", fallback ? "y" : "n", [](const std::string& s) {
    return s == "y" || s == "n" || s == "yes" || s == "no" ? std::string() : "answer y or n";
  });
  return a[0] == 'y';
}

}  // namespace runner
