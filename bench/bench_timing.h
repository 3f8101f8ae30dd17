// Timing helpers the benches share: a round of timed steps, the Trainer's
// per-step clock, and the robust "sum of per-step medians over rounds".
#pragma once

#include "train/logger.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

inline double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One timed round: each step's seconds, and the round's totals.
struct Round {
  std::vector<double> step_seconds;
  long long samples = 0, tokens = 0;
  double seconds() const { return std::accumulate(step_seconds.begin(), step_seconds.end(), 0.0); }
  double samples_per_s() const { return samples / seconds(); }
  double tokens_per_s() const { return tokens / seconds(); }
};

// Takes the time of every optimizer step from the Trainer's progress events.
struct StepClock : runner::Logger {
  Clock::time_point last;
  std::vector<double> step_seconds;
  void log(const nlohmann::json& e) override {
    if (e.value("event", "") != "progress") return;
    auto now = Clock::now();
    step_seconds.push_back(seconds_between(last, now));
    last = now;
  }
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The sum over steps of each step's median time across the rounds: a burst of
// load from elsewhere must hit most rounds of one step on one side to move it.
inline double sum_of_step_medians(const std::vector<Round>& rounds) {
  double total = 0;
  for (size_t i = 0; i < rounds.front().step_seconds.size(); ++i) {
    std::vector<double> times;
    for (const auto& r : rounds) times.push_back(r.step_seconds.at(i));
    total += median(times);
  }
  return total;
}

inline const Round& fastest(const std::vector<Round>& rounds) {
  return *std::min_element(rounds.begin(), rounds.end(),
                           [](const Round& a, const Round& b) { return a.seconds() < b.seconds(); });
}

// The machine's 1-minute load average, printed beside the figures: on these
// shared 2-core machines a build beside the bench moves the ratios by tenths.
inline std::string load_note(int threads) {
  double load = -1;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = -1;
    std::fclose(f);
  }
  if (load < 0) return "load average unknown";
  char text[160];
  std::snprintf(text, sizeof text, "load average %.2f%s", load,
                load > threads + 0.5 ? " (BUSY: other work shares the cores; these ratios are not reliable)" : "");
  return text;
}

}  // namespace bench
