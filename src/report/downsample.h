// A chart series read as a stream and kept within a fixed number of points, so
// that a run of millions of steps is read in bounded memory and drawn as a
// chart of a few thousand points (a chart of a million points is not readable
// anyway, and its page would be tens of megabytes).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace runner {

// Consecutive points are grouped in buckets whose width (in points) doubles
// whenever there would be more than `max_buckets`; a bucket keeps its first,
// lowest, highest and last point, so spikes, the best value and the ends of
// the curve survive. Up to `max_buckets` points are kept exactly as they came.
class Downsampler {
 public:
  explicit Downsampler(size_t max_buckets = 1024) : max_buckets_(max_buckets) {}
  void add(double x, double y);
  // The kept points in the order they came, each once.
  std::vector<std::pair<double, double>> points() const;
  long long seen() const { return seen_; }

 private:
  using Point = std::pair<double, double>;
  struct Bucket {
    Point first, low, high, last;
    long long count = 0;
  };
  static Bucket merged(const Bucket& a, const Bucket& b);

  size_t max_buckets_;
  long long width_ = 1;  // points per full bucket
  long long seen_ = 0;
  std::vector<Bucket> buckets_;
};

}  // namespace runner
