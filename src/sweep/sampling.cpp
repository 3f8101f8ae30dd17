#include "sweep/sampling.h"

#include "util/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace runner {

const std::vector<std::string>& distribution_names() {
  static const std::vector<std::string> names = {"uniform", "log_uniform", "int", "choice"};
  return names;
}

namespace {

const char* kRandomExample = "\"optimizer.lr\" = { log_uniform = [1e-5, 1e-3] }";

bool is_distribution(const Value& v) {
  if (!v.is_table() || v.table.size() != 1) return false;
  const auto& names = distribution_names();
  return std::find(names.begin(), names.end(), v.table.front().first) != names.end();
}

// A one-key table of a list: a distribution, known or not ({ normal = [0, 1] }).
bool looks_like_distribution(const Value& v) {
  return v.is_table() && v.table.size() == 1 && v.table.front().second.type == Value::Type::List;
}

// Nested tables spell dotted keys until a one-key table holds a list.
void collect(const Value& table, const std::string& prefix, std::vector<std::pair<std::string, const Value*>>& out) {
  for (const auto& [key, v] : table.table) {
    std::string path = prefix.empty() ? key : prefix + "." + key;
    if (v.is_table() && !v.table.empty() && !looks_like_distribution(v))
      collect(v, path, out);
    else
      out.push_back({path, &v});
  }
}

bool is_number(const Value& v) { return v.type == Value::Type::Int || v.type == Value::Type::Float; }
double number(const Value& v) { return v.type == Value::Type::Int ? static_cast<double>(v.i) : v.f; }

// The range's problem in words, "" when it is well formed.
std::string range_problem(const std::string& dist, const Value& range) {
  if (dist == "choice") return range.list.empty() ? "an empty list of choices" : "";
  if (range.list.size() != 2 || !is_number(range.list[0]) || !is_number(range.list[1]))
    return "not a [low, high] pair of numbers";
  const double lo = number(range.list[0]), hi = number(range.list[1]);
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) return fmt::format("low {} not below high {}", lo, hi);
  if (dist == "log_uniform" && lo <= 0) return fmt::format("low {} is not above 0, and log_uniform takes logarithms", lo);
  if (dist == "int" && (range.list[0].type != Value::Type::Int || range.list[1].type != Value::Type::Int))
    return "int takes whole numbers";
  // A draw is made in double precision: past 2^53 its whole numbers are no longer
  // exact, and the width of [INT64_MIN, INT64_MAX] would overflow.
  constexpr long long kExact = 1LL << 53;
  if (dist == "int" && (range.list[0].i < -kExact || range.list[1].i > kExact))
    return fmt::format("beyond +-2^53 ({}): int draws whole numbers exactly up to that size", kExact);
  return "";
}

std::string range_fix(const std::string& dist) {
  if (dist == "choice") return "write { choice = [0.1, 0.2] }";
  if (dist == "int") return "write { int = [8, 32] }: whole numbers within +-2^53, low below high, both included";
  if (dist == "log_uniform") return "write { log_uniform = [1e-5, 1e-3] }: both above 0, low below high";
  return "write { uniform = [0.0, 0.1] }: low below high";
}

void read_axis(const std::string& key, const Value& v, SweepFile& sweep, Diagnostics& diags) {
  const std::string where = "random." + key;
  if (!is_distribution(v)) {
    const std::string found = looks_like_distribution(v) ? "\"" + v.table.front().first + "\", which is none"
                                                         : v.type_name() + " " + v.short_str();
    diags.push_back(make_error(v.loc, where, "expected a distribution, found " + found,
                               fmt::format("write {} with one of: {}", kRandomExample, join(distribution_names()))));
    return;
  }
  const auto& [dist, range] = v.table.front();
  if (range.type != Value::Type::List) {
    diags.push_back(make_error(range.loc, where + "." + dist, "expected a list, found " + range.type_name(), range_fix(dist)));
    return;
  }
  if (std::string problem = range_problem(dist, range); !problem.empty()) {
    diags.push_back(make_error(range.loc, where + "." + dist, "the range is " + problem, range_fix(dist)));
    return;
  }
  RandomAxis axis{key, dist, 0, 0, {}, v.loc};
  if (dist == "choice")
    axis.choices = range.list;
  else
    axis.low = number(range.list[0]), axis.high = number(range.list[1]);
  sweep.random.push_back(std::move(axis));
}

void check_samples(const Value& root, const SweepFile& sweep, Diagnostics& diags) {
  const Value* table = root.find("random");
  const Value* samples = root.find("samples");
  if (table && sweep.samples < 1)
    diags.push_back(make_error(samples ? samples->loc : table->loc, "samples",
                               "[random] draws `samples` points, and samples is not set",
                               "write samples = 16 at the sweep file's top level"));
  if (!table && sweep.samples > 0)
    diags.push_back(make_error(samples->loc, "samples", "samples is set but there is no [random] table to draw from",
                               fmt::format("add [random] with a line such as {}, or remove samples", kRandomExample)));
  for (const auto& axis : sweep.random)
    if (sweep_varies(sweep, axis.key))
      diags.push_back(make_error(axis.loc, "random." + axis.key,
                                 fmt::format("{} is both sampled and in [grid], [zip] or points", axis.key),
                                 "keep the key in one place"));
}

// SplitMix64: a small PRNG of integer arithmetic, the same on every machine.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

uint32_t nth_prime(size_t n) {
  static const uint32_t primes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53,
                                    59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131};
  return primes[n % (sizeof(primes) / sizeof(primes[0]))];
}

double four_digits(double x) { return std::stod(fmt::format("{:.4g}", x)); }

Value float_value(double x, const SourceLocation& loc) {
  Value v;
  v.type = Value::Type::Float;
  v.f = four_digits(x);
  v.loc = loc;
  return v;
}

// The value of `axis` at `u` in [0, 1).
Value value_at(const RandomAxis& axis, double u) {
  if (axis.distribution == "choice") {
    size_t n = axis.choices.size();
    return axis.choices[std::min(n - 1, static_cast<size_t>(u * static_cast<double>(n)))];
  }
  if (axis.distribution == "int") {
    Value v;
    v.type = Value::Type::Int;
    const auto lo = static_cast<long long>(axis.low), hi = static_cast<long long>(axis.high);
    v.i = std::min(hi, lo + static_cast<long long>(std::floor(u * static_cast<double>(hi - lo + 1))));
    v.loc = axis.loc;
    return v;
  }
  if (axis.distribution == "log_uniform") {
    const double a = std::log(axis.low), b = std::log(axis.high);
    return float_value(std::exp(a + u * (b - a)), axis.loc);
  }
  return float_value(axis.low + u * (axis.high - axis.low), axis.loc);
}

// The coordinates of draw `index` (from 1) in [0, 1)^dims.
std::vector<double> draw(const SweepFile& sweep, uint64_t index, SplitMix64& rng, const std::vector<double>& shift) {
  std::vector<double> u(sweep.random.size());
  for (size_t d = 0; d < u.size(); ++d) {
    if (sweep.sampler == "halton") {
      // A seeded shift modulo 1 (Cranley-Patterson): each seed its own sequence, as even.
      double x = radical_inverse(index, nth_prime(d)) + shift[d];
      u[d] = x - std::floor(x);
    } else {
      u[d] = rng.uniform();
    }
  }
  return u;
}

}  // namespace

double radical_inverse(uint64_t index, uint32_t base) {
  double result = 0, scale = 1.0 / base;
  for (; index > 0; index /= base, scale /= base) result += static_cast<double>(index % base) * scale;
  return result;
}

void read_random_axes(const Value& root, SweepFile& sweep, Diagnostics& diags) {
  if (const Value* table = root.find("random"); table && table->is_table()) {
    std::vector<std::pair<std::string, const Value*>> leaves;
    collect(*table, "", leaves);
    for (const auto& [key, v] : leaves) read_axis(key, *v, sweep, diags);
  }
  check_samples(root, sweep, diags);
}

std::vector<std::vector<Assignment>> sampled_rows(const SweepFile& sweep) {
  if (sweep.random.empty() || sweep.samples < 1) return {{}};
  SplitMix64 rng(static_cast<uint64_t>(sweep.sample_seed));
  std::vector<double> shift(sweep.random.size());
  for (double& s : shift) s = rng.uniform();
  std::vector<std::vector<Assignment>> rows;
  std::set<std::string> seen;
  // Draws of int and choice keys may repeat; a bounded number of tries past
  // `samples` finds the distinct ones a small space holds.
  const uint64_t tries = static_cast<uint64_t>(sweep.samples) * 20;
  for (uint64_t index = 1; index <= tries && rows.size() < static_cast<size_t>(sweep.samples); ++index) {
    std::vector<double> u = draw(sweep, index, rng, shift);
    std::vector<Assignment> row;
    std::string text;
    for (size_t d = 0; d < u.size(); ++d) {
      row.push_back({sweep.random[d].key, value_at(sweep.random[d], u[d])});
      text += row.back().value.to_json().dump() + ";";
    }
    if (seen.insert(text).second) rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace runner
