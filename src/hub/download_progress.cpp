#include "hub/download_progress.h"

#include <fmt/format.h>

#include <cstdio>

namespace runner::hub {

std::string human_bytes(long long bytes) {
  if (bytes < 1000) return fmt::format("{} B", bytes);
  if (bytes < 1000 * 1000) return fmt::format("{:.1f} kB", bytes / 1e3);
  if (bytes < 1000LL * 1000 * 1000) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

DownloadProgress::DownloadProgress(std::string what, long long total_bytes, bool bar)
    : what_(std::move(what)), total_(total_bytes), bar_(bar), start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

double DownloadProgress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void DownloadProgress::update(long long bytes) {
  auto now = std::chrono::steady_clock::now();
  if (!bar_ || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double fraction = total_ > 0 ? std::min(1.0, double(bytes) / double(total_)) : 0.0;
  const int width = 30;
  int filled = static_cast<int>(fraction * width);
  std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
  double speed = seconds() > 0 ? double(bytes) / seconds() : 0.0;
  std::fprintf(stderr, "\r%s [%s] %3.0f%% %s/%s %s/s   ", what_.c_str(), bar.c_str(), fraction * 100,
               human_bytes(bytes).c_str(), total_ >= 0 ? human_bytes(total_).c_str() : "?",
               human_bytes(static_cast<long long>(speed)).c_str());
  std::fflush(stderr);
}

void DownloadProgress::finish(long long bytes) {
  double s = seconds();
  std::string speed = s > 0 ? human_bytes(static_cast<long long>(double(bytes) / s)) + "/s" : "-";
  std::fprintf(stderr, "%sdownloaded %s (%s in %.1f s, %s)\n", bar_ ? "\r\033[K" : "", what_.c_str(),
               human_bytes(bytes).c_str(), s, speed.c_str());
}

}  // namespace runner::hub
