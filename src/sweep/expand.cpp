#include "sweep/expand.h"

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

std::vector<std::vector<Assignment>> varying_rows(const SweepFile& sweep) {
  std::vector<std::vector<Assignment>> rows;
  if (!sweep.grid.empty() || !sweep.zip.empty() || sweep.points.empty())
    for (const auto& g : grid_rows(sweep.grid))
      for (const auto& z : zip_rows(sweep.zip)) {
        rows.push_back(g);
        rows.back().insert(rows.back().end(), z.begin(), z.end());
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

Expansion expand_sweep(const SweepFile& sweep) {
  Expansion out;
  std::map<std::string, size_t> index_of;  // canonical overrides -> point number
  std::vector<std::vector<Assignment>> rows = varying_rows(sweep);
  for (size_t i = 0; i < rows.size(); ++i) {
    SweepPoint p;
    p.varying = rows[i];
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
