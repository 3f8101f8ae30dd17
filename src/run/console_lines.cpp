#include "run/console_lines.h"

#include "run/run_summary.h"

#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <sys/ioctl.h>

namespace runner {
namespace {

// Keys shown at the start of a line, or in its time prefix, not again among the rest.
bool shown_apart(const std::string& key) {
  return key == "event" || key == "step" || key == "total_steps" || key == "epoch" || key == "loss" ||
         key == "wall_time" || key == "elapsed_s";
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return significant(v.get<double>());
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string utc_text(double unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string time_prefix(const nlohmann::json& e) {
  std::string out;
  if (auto t = e.find("wall_time"); t != e.end() && t->is_number()) out += utc_text(t->get<double>()) + " ";
  if (auto s = e.find("elapsed_s"); s != e.end() && s->is_number()) out += "+" + elapsed_text(s->get<double>()) + " ";
  return out;
}

std::string step_text(const nlohmann::json& e) {
  auto step = e.find("step");
  if (step == e.end() || !step->is_number_integer()) return "";
  auto total = e.find("total_steps");
  if (total != e.end() && total->is_number_integer()) return fmt::format(" step={}/{}", step->dump(), total->dump());
  return " step=" + step->dump();
}

std::string signal_name(int signal) {
  if (signal == 1) return "SIGHUP";
  if (signal == 2) return "SIGINT";
  if (signal == 15) return "SIGTERM";
  return fmt::format("signal {}", signal);
}

// A path as a shell reads it back: quoted when it holds anything but the usual characters.
std::string shell_word(const std::string& path) {
  bool plain = !path.empty() && std::all_of(path.begin(), path.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-' ||
           c == '+' || c == ':' || c == '=';
  });
  if (plain) return path;
  std::string out = "'";
  for (char c : path) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string best_text(const nlohmann::json& best) {
  if (!best.is_object() || !best.contains("value") || !best["value"].is_number()) return "";
  std::string metric = best.value("metric", std::string("best"));
  if (metric.rfind("eval.", 0) != 0) metric = "eval." + metric;
  return fmt::format("best {}={} at step {}", metric, significant(best["value"].get<double>()),
                     best.value("step", 0LL));
}

std::string final_text(const nlohmann::json& final) {
  if (!final.is_object()) return "";
  std::string out;
  for (const auto& [key, value] : final.items())
    if (value.is_number_float()) out += fmt::format("{}eval.{}={}", out.empty() ? "" : " ", key, significant(value.get<double>()));
  return out.empty() ? "" : "final " + out;
}

}  // namespace

std::string significant(double v) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  double magnitude = std::fabs(v);
  // Past 4 integer digits, the rounded whole number reads better than an exponent.
  if (magnitude >= 1e4 && magnitude < 1e15) {
    double scale = std::pow(10.0, std::floor(std::log10(magnitude)) - 3);
    return fmt::format("{:.0f}", std::round(v / scale) * scale);
  }
  return fmt::format("{:.4g}", v);
}

std::string elapsed_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  if (seconds < 60) return fmt::format("{:.1f}s", seconds);
  long long s = static_cast<long long>(seconds);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

namespace {

std::string event_text(const nlohmann::json& e) {
  std::string kind = e.value("event", std::string("event"));
  if (kind == "end") return time_prefix(e) + end_line(e);
  if (kind == "warning") return time_prefix(e) + "warning: " + e.value("message", std::string());
  std::string line = time_prefix(e) + kind + step_text(e);
  for (const char* key : {"epoch", "loss"})
    if (auto v = e.find(key); v != e.end()) line += fmt::format(" {}={}", key, value_text(*v));
  const bool has_step = !step_text(e).empty();  // total_steps is shown with the step, else among the rest
  for (const auto& [key, value] : e.items()) {
    // An evaluation's per-class tables stay in metrics.jsonl: a line shows its numbers.
    if (kind == "eval" && value.is_object()) continue;
    if (!shown_apart(key) || (key == "total_steps" && !has_step)) line += " " + key + "=" + value_text(value);
  }
  return line;
}

}  // namespace

// Every line is terminal-safe: a message may carry text from a damaged file (a
// manifest's key, a folder's name) with escape sequences or bytes that are not UTF-8.
std::string event_line(const nlohmann::json& e) { return terminal_safe(event_text(e), true); }

std::string end_line(const nlohmann::json& e) {
  const std::string status = e.value("status", std::string("ended"));
  std::string line = "end " + status;
  if (status == "interrupted") line += " by " + signal_name(e.value("signal", 0));
  if (auto early = e.find("stopped_early"); early != e.end() && *early == true)
    line += " (early stopping: no better evaluation within train.early_stopping_patience)";
  line += step_text(e);
  if (auto wall = e.find("wall_seconds"); wall != e.end() && wall->is_number())
    line += " after " + elapsed_text(wall->get<double>());
  if (auto rate = e.find("samples_per_s"); rate != e.end() && rate->is_number() && rate->get<double>() > 0)
    line += fmt::format(" ({} samples/s)", significant(rate->get<double>()));
  std::string results;
  for (const std::string& part : {best_text(e.value("best", nlohmann::json())), final_text(e.value("final", nlohmann::json()))})
    if (!part.empty()) results += (results.empty() ? "" : ", ") + part;
  if (!results.empty()) line += ": " + results;
  if (status == "failed") line += ": " + e.value("error", std::string("(no reason recorded)"));
  const std::string dir = e.value("run_dir", std::string());
  if (dir.empty()) return line;
  if (status == "interrupted" || status == kStoppedBySearch)
    return line + "\n  continue with: runner resume " + shell_word(dir);
  return line + "\n  see it with: runner report " + shell_word(dir);
}

namespace {

// The pieces of the bar, each left out in turn when the terminal is narrow.
struct BarParts {
  std::string counts, epoch, tail, loss, lr, rate, eta;
};

BarParts bar_parts(const BarState& s, long long total) {
  BarParts p;
  p.counts = fmt::format(" {}/{}", s.step, total);
  if (s.steps_per_epoch > 0)
    p.epoch = fmt::format(" epoch {:.2f}/{}", static_cast<double>(s.step) / static_cast<double>(s.steps_per_epoch),
                          (total + s.steps_per_epoch - 1) / s.steps_per_epoch);
  if (s.evaluating) {
    p.tail = fmt::format(" evaluating {} batches ...", s.eval_batches);
    return p;
  }
  if (s.has_loss) p.loss = " loss " + significant(s.loss);
  p.lr = " lr " + significant(s.lr);
  p.rate = fmt::format(" {:.2f} it/s", s.steps_per_s);
  long long eta = s.steps_per_s > 0 ? static_cast<long long>(static_cast<double>(total - s.step) / s.steps_per_s) : 0;
  p.eta = fmt::format(" ETA {:02}:{:02}", eta / 60, eta % 60);
  return p;
}

std::string bar_of(long long step, long long total, int width) {
  const int filled = static_cast<int>(width * std::clamp(step, 0LL, total) / total);
  return "[" + std::string(static_cast<size_t>(filled), '=') + std::string(static_cast<size_t>(width - filled), ' ') +
         "]";
}

}  // namespace

std::string bar_text(const BarState& s, int columns) {
  const long long total = std::max(1LL, s.total_steps);
  const size_t room = static_cast<size_t>(std::max(columns, 2) - 1);
  constexpr int kWidestBar = 24, kNarrowestBar = 8;
  BarParts p = bar_parts(s, total);
  auto text = [&](int width) {
    return bar_of(s.step, total, width) + p.counts + p.epoch + p.tail + p.loss + p.lr + p.rate + p.eta;
  };
  auto fitting = [&]() -> std::string {
    int width = kWidestBar;
    while (width > kNarrowestBar && text(width).size() > room) --width;
    std::string out = text(width);
    return out.size() <= room ? out : "";
  };
  for (std::string* dropped : {&p.lr, &p.rate, &p.eta, &p.epoch}) {
    if (std::string out = fitting(); !out.empty()) return out;
    dropped->clear();
  }
  std::string out = fitting();
  return out.empty() ? text(kNarrowestBar).substr(0, room) : out;
}

int terminal_columns(int fd) {
  if (const char* env = std::getenv("COLUMNS"); env && *env) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (*end == '\0' && n > 0 && n < 10000) return static_cast<int>(n);
  }
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace runner
