#include "run/run_choice.h"

#include <stdexcept>

namespace runner {
namespace {

constexpr const char* kNew = "new:";
constexpr const char* kResume = "resume:";

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

std::string run_choice_text(const RunChoice& choice) {
  return (choice.resuming() ? kResume : kNew) + choice.dir;
}

RunChoice run_choice_from_text(const std::string& text) {
  for (RunChoice::Kind kind : {RunChoice::Kind::New, RunChoice::Kind::Resume}) {
    const std::string prefix = kind == RunChoice::Kind::New ? kNew : kResume;
    if (starts_with(text, prefix) && text.size() > prefix.size()) return {kind, text.substr(prefix.size())};
  }
  throw std::runtime_error("rank 0's choice of run directory arrived as \"" + text +
                           "\", neither new:DIR nor resume:DIR");
}

}  // namespace runner
