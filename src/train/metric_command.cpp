#include "train/metric_command.h"

#include "util/bounded_command.h"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace runner {
namespace {

constexpr const char* kKey = "train.metric_command";

std::string command_text(const MetricCommand& c) {
  std::string s;
  for (const auto& a : c.argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

[[noreturn]] void fail(const MetricCommand& c, const std::string& what, const std::string& hint) {
  throw MetricCommandError(make_error({}, kKey, "the metric command `" + command_text(c) + "` " + what, hint));
}

void write_records(const std::vector<nlohmann::json>& records, const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::trunc);
  for (const auto& r : records) out << r.dump() << '\n';
  out.flush();
  if (!out)
    throw MetricCommandError(make_error({}, kKey, "cannot write the predictions for the metric command to " + path,
                                        "free space on that disk or check its permissions"));
}

// The last lines of what it said on stderr, for the error message.
std::string tail_of(const std::string& text) {
  const size_t keep = 600;
  std::string t = text.size() > keep ? "..." + text.substr(text.size() - keep) : text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t.empty() ? "" : "; it said: " + t;
}

bool plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (char ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
  return true;
}

nlohmann::json read_answer(const MetricCommand& c, const CommandOutput& out, const nlohmann::json& built_in) {
  nlohmann::json answer = nlohmann::json::parse(out.out, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object())
    fail(c, "printed no JSON object on its standard output" + tail_of(out.out + out.err),
         "print one object of named numbers, e.g. {\"exact_match\": 71.2}, and nothing else on stdout");
  for (const auto& [name, value] : answer.items()) {
    if (!plain_name(name))
      fail(c, "named a metric \"" + name + "\"", "use letters, digits and _ in metric names");
    if (built_in.contains(name))
      fail(c, "returned \"" + name + "\", which the runner computes itself", "give the metric another name");
    if (!value.is_number() || !std::isfinite(value.get<double>()))
      fail(c, "returned " + value.dump() + " for \"" + name + "\"", "return a finite number for every metric");
  }
  return answer;
}

}  // namespace

nlohmann::json run_metric_command(const MetricCommand& c, const std::vector<nlohmann::json>& records,
                                  const std::string& predictions_path, const nlohmann::json& built_in,
                                  const std::function<bool()>& stop_requested) {
  write_records(records, predictions_path);
  std::vector<std::string> argv = c.argv;
  argv.push_back(predictions_path);
  const CommandOutput out = run_command(argv, c.timeout_s, stop_requested);
  if (!out.started)
    fail(c, "could not be started", "check that " + c.argv.front() + " is installed and on PATH");
  if (out.timed_out)
    fail(c, "ran past its limit of " + std::to_string(static_cast<long long>(c.timeout_s)) + " s and was stopped",
         "make it faster, or raise train.metric_command_timeout_s");
  if (out.stopped) fail(c, "was stopped by a signal to the run", "resume the run");
  if (out.overflowed)
    fail(c, "printed more than " + std::to_string(kMaxCommandOutput >> 20) + " MiB and was stopped",
         "print one JSON object of named numbers on stdout, and little else on stderr");
  if (out.exit_code != 0)
    fail(c, "exited with status " + std::to_string(out.exit_code) + tail_of(out.err.empty() ? out.out : out.err),
         "run it by hand on " + predictions_path + " to see why");
  return read_answer(c, out, built_in);
}

}  // namespace runner
