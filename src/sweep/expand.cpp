#include "sweep/expand.h"

#include "sweep/sampling.h"
#include "util/sha256.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace runner {

std::vector<std::string> SweepPoint::set_args() const {
  std::vector<std::string> out;
  for (const auto& a : overrides) out.push_back(a.key + "=" + a.text());
  return out;
}

namespace {

// Characters that stay readable in a directory name; the rest become '_'.
std::string slug_part(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
    out += keep ? c : '_';
  }
  return out;
}

std::string last_segment(const std::string& key) {
  size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

// Canonical text of the overrides: sorted by key, values as compact JSON (the
// shortest round-trip form of each number), so that the hash does not depend on
// the order the sweep file lists its axes in nor on the machine.
std::string canonical(const std::vector<Assignment>& overrides) {
  std::map<std::string, std::string> sorted;
  for (const auto& a : overrides) sorted[a.key] = a.value.to_json().dump();
  std::string out;
  for (const auto& [k, v] : sorted) out += k + "=" + v + "\n";
  return out;
}

// The grid's cartesian product, the first axis varying slowest.
std::vector<std::vector<Assignment>> grid_rows(const std::vector<Axis>& grid) {
  std::vector<std::vector<Assignment>> rows = {{}};
  for (const auto& axis : grid) {
    std::vector<std::vector<Assignment>> next;
    for (const auto& row : rows)
      for (const auto& v : axis.values) {
        next.push_back(row);
        next.back().push_back({axis.key, v});
      }
    rows = std::move(next);
  }
  return rows;
}

std::vector<std::vector<Assignment>> zip_rows(const std::vector<Axis>& zip) {
  if (zip.empty()) return {{}};
  std::vector<std::vector<Assignment>> rows(zip.front().values.size());
  for (const auto& axis : zip)
    for (size_t i = 0; i < rows.size() && i < axis.values.size(); ++i)
      rows[i].push_back({axis.key, axis.values[i]});
  return rows;
}

// The grid's product times the zip rows times the sampled rows, then the
// explicit points; the base alone when nothing varies.
std::vector<std::vector<Assignment>> varying_rows(const SweepFile& sweep) {
  std::vector<std::vector<Assignment>> rows;
  if (!sweep.grid.empty() || !sweep.zip.empty() || !sweep.random.empty() || sweep.points.empty()) {
    const auto sampled = sampled_rows(sweep);
    for (const auto& g : grid_rows(sweep.grid))
      for (const auto& z : zip_rows(sweep.zip))
        for (const auto& r : sampled) {
          rows.push_back(g);
          rows.back().insert(rows.back().end(), z.begin(), z.end());
          rows.back().insert(rows.back().end(), r.begin(), r.end());
        }
  }
  for (const auto& p : sweep.points) rows.push_back(p);
  return rows;
}

void check_keys_once(const std::vector<Assignment>& row, const std::string& where,
                     Diagnostics& diags) {
  std::map<std::string, int> seen;
  for (const auto& a : row)
    if (++seen[a.key] == 2)
      diags.push_back(make_error(a.value.loc, a.key,
                                 fmt::format("{} sets {} twice", where, a.key),
                                 "a key may be in [grid], [zip] or a point, but only once"));
}

}  // namespace

std::string point_id(const std::vector<Assignment>& varying,
                     const std::vector<Assignment>& overrides) {
  std::string slug;
  for (const auto& a : varying)
    slug += (slug.empty() ? "" : "_") + slug_part(last_segment(a.key)) + "-" + slug_part(a.text());
  if (slug.empty()) slug = "base";
  if (slug.size() > 80) slug.resize(80);
  return slug + "-" + digest::sha256_hex(canonical(overrides)).substr(0, 8);
}

std::optional<uint64_t> count_points(const SweepFile& sweep) {
  uint64_t rows = 1;
  for (const auto& axis : sweep.grid)
    if (__builtin_mul_overflow(rows, uint64_t{axis.values.size()}, &rows)) return std::nullopt;
  if (!sweep.zip.empty() &&
      __builtin_mul_overflow(rows, uint64_t{sweep.zip.front().values.size()}, &rows))
    return std::nullopt;
  if (!sweep.random.empty() && __builtin_mul_overflow(rows, static_cast<uint64_t>(sweep.samples), &rows))
    return std::nullopt;
  if (sweep.grid.empty() && sweep.zip.empty() && sweep.random.empty() && !sweep.points.empty()) rows = 0;
  uint64_t total = 0;
  if (__builtin_add_overflow(rows, uint64_t{sweep.points.size()}, &total)) return std::nullopt;
  return total;
}

namespace {

// "12 grid keys of 10 values each" or "grid 3 x 4, zip 5, 2 points": how the count arose.
std::string count_origin(const SweepFile& sweep) {
  std::string sizes;
  bool same = !sweep.grid.empty();
  for (const auto& axis : sweep.grid) {
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(axis.values.size());
    same &= axis.values.size() == sweep.grid.front().values.size();
  }
  std::string out = same && sweep.grid.size() > 2
                        ? fmt::format("{} grid keys of {} values each", sweep.grid.size(),
                                      sweep.grid.front().values.size())
                        : (sizes.empty() ? "" : "grid " + sizes);
  if (!sweep.zip.empty())
    out += (out.empty() ? "" : ", ") + fmt::format("zip rows {}", sweep.zip.front().values.size());
  if (!sweep.random.empty())
    out += (out.empty() ? "" : ", ") + fmt::format("{} samples", sweep.samples);
  if (!sweep.points.empty())
    out += (out.empty() ? "" : ", ") + fmt::format("{} explicit points", sweep.points.size());
  return out;
}

std::optional<Diagnostic> too_many_points(const SweepFile& sweep, long long max_points) {
  std::optional<uint64_t> n = count_points(sweep);
  if (n && *n <= static_cast<uint64_t>(max_points)) return std::nullopt;
  SourceLocation loc = !sweep.grid.empty()  ? sweep.grid.front().loc
                       : !sweep.zip.empty() ? sweep.zip.front().loc
                                            : SourceLocation{sweep.path, 0, 0, ""};
  return make_error(loc, "grid",
                    fmt::format("expected at most {} points, found {} ({})", max_points,
                                n ? std::to_string(*n) : "more than 18446744073709551615",
                                count_origin(sweep)),
                    "use fewer values per key, move keys that change together to [zip], or "
                    "raise the limit with --max-points N");
}

}  // namespace

Expansion expand_sweep(const SweepFile& sweep, long long max_points) {
  Expansion out;
  if (auto d = too_many_points(sweep, max_points)) {
    out.diags.push_back(std::move(*d));
    return out;
  }
  std::map<std::string, size_t> index_of;  // canonical overrides -> point number
  std::vector<std::vector<Assignment>> rows = varying_rows(sweep);
  for (size_t i = 0; i < rows.size(); ++i) {
    SweepPoint p;
    p.varying = std::move(rows[i]);  // each row once in memory: a sweep may have a million
    p.overrides = sweep.set;
    // A point's own value wins over [set] for the same key.
    for (const auto& a : p.varying)
      p.overrides.erase(std::remove_if(p.overrides.begin(), p.overrides.end(),
                                       [&](const Assignment& s) { return s.key == a.key; }),
                        p.overrides.end());
    p.overrides.insert(p.overrides.end(), p.varying.begin(), p.varying.end());
    check_keys_once(p.varying, fmt::format("point {}", i + 1), out.diags);
    p.id = point_id(p.varying, p.overrides);
    auto [it, fresh] = index_of.emplace(canonical(p.overrides), i);
    if (!fresh) {
      SourceLocation loc = p.varying.empty() ? SourceLocation{sweep.path, 0, 0, ""} : p.varying.front().value.loc;
      out.diags.push_back(make_error(
          loc, "", fmt::format("point {} ({}) duplicates point {}: both run the same overrides",
                               i + 1, p.id, it->second + 1),
          "remove one of them; a sweep runs each configuration once"));
    }
    out.points.push_back(std::move(p));
  }
  return out;
}

}  // namespace runner
