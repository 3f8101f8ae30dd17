#include "report/downsample.h"

#include <algorithm>

namespace runner {

Downsampler::Bucket Downsampler::merged(const Bucket& a, const Bucket& b) {
  Bucket m = a;
  if (b.low.second < m.low.second) m.low = b.low;
  if (b.high.second > m.high.second) m.high = b.high;
  m.last = b.last;
  m.count = a.count + b.count;
  return m;
}

void Downsampler::add(double x, double y) {
  ++seen_;
  Point p{x, y};
  if (buckets_.empty() || buckets_.back().count >= width_) {
    buckets_.push_back({p, p, p, p, 1});
  } else {
    Bucket& b = buckets_.back();
    if (y < b.low.second) b.low = p;
    if (y > b.high.second) b.high = p;
    b.last = p;
    ++b.count;
  }
  if (buckets_.size() <= max_buckets_) return;
  // Twice as wide: neighbours merge, and the memory stays at max_buckets_.
  std::vector<Bucket> wider;
  wider.reserve(buckets_.size() / 2 + 1);
  for (size_t i = 0; i < buckets_.size(); i += 2)
    wider.push_back(i + 1 < buckets_.size() ? merged(buckets_[i], buckets_[i + 1]) : buckets_[i]);
  buckets_ = std::move(wider);
  width_ *= 2;
}

std::vector<std::pair<double, double>> Downsampler::points() const {
  std::vector<Point> out;
  for (const Bucket& b : buckets_) {
    // first, low, high, last in the order they came (low and high by their step).
    Point mid[2] = {b.low, b.high};
    if (mid[1].first < mid[0].first) std::swap(mid[0], mid[1]);
    for (const Point& p : {b.first, mid[0], mid[1], b.last})
      if (out.empty() || out.back() != p) out.push_back(p);
  }
  return out;
}

}  // namespace runner
