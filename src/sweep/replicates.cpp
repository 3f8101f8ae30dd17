#include "sweep/replicates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace runner {

// "run.seed, data.seed" -> {"run.seed", "data.seed"}.
std::vector<std::string> replicate_keys(const std::string& text) {
  std::vector<std::string> keys;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string key = text.substr(start, comma - start);
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t") + 1);
    if (!key.empty()) keys.push_back(key);
    start = comma + 1;
  }
  return keys;
}

// A replicate key must be one the sweep varies: else every point is one configuration's only replicate.
void check_replicates(const Value& root, const SweepFile& sweep, Diagnostics& diags) {
  const Value* given = root.find("replicates");
  if (given && sweep.replicates.empty())
    diags.push_back(make_error(given->loc, "replicates",
                               "replicates names no key: it is empty or only commas",
                               "name the swept keys whose values are replicates (replicates = \"run.seed\"), or "
                               "remove replicates"));
  for (const auto& key : sweep.replicates) {
    if (!sweep_varies(sweep, key))
      diags.push_back(make_error(root.find("replicates")->loc, "replicates",
                                 fmt::format("\"{}\" is not swept: replicates are values of a key that [grid], "
                                             "[zip] or points vary", key),
                                 fmt::format("add \"{}\" = [1, 2, 3] under [grid], or remove it from replicates",
                                             key)));
  }
}

MeanSd mean_and_sd(const std::vector<double>& values) {
  MeanSd out;
  if (values.empty()) return out;
  double sum = 0;
  for (double v : values) sum += v;
  double mean = sum / static_cast<double>(values.size());
  out.mean = mean;
  if (values.size() < 2) return out;
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  out.sd = std::sqrt(squares / static_cast<double>(values.size() - 1));
  return out;
}

namespace {

bool is_replicate(const std::string& key, const std::vector<std::string>& replicates) {
  return std::find(replicates.begin(), replicates.end(), key) != replicates.end();
}

// The rows' configurations in sweep order of first appearance, with their values.
std::vector<ConfigurationRow> group_points(const SweepTable& t, const std::vector<std::string>& replicates,
                                           std::map<std::string, std::vector<double>>& values) {
  std::vector<ConfigurationRow> configs;
  std::map<std::string, size_t> index;
  for (const PointRow& row : t.rows) {
    ConfigurationRow c;
    for (size_t k = 0; k < t.keys.size(); ++k) {
      if (is_replicate(t.keys[k], replicates) || !row.overrides.contains(t.keys[k])) continue;
      c.overrides[t.keys[k]] = row.overrides[t.keys[k]];
      c.label += (c.label.empty() ? "" : " ") + t.keys[k] + "=" + row.override_texts[k];
    }
    std::string id = c.overrides.dump();
    auto [at, added] = index.emplace(id, configs.size());
    if (added) configs.push_back(std::move(c));
    configs[at->second].points.push_back(row.id);
    if (row.status == "completed" && row.best) values[id].push_back(*row.best);
  }
  return configs;
}

}  // namespace

std::vector<ConfigurationRow> aggregate_replicates(const SweepTable& t, const std::vector<std::string>& replicates) {
  std::map<std::string, std::vector<double>> values;
  std::vector<ConfigurationRow> configs = group_points(t, replicates, values);
  for (auto& c : configs) {
    const std::vector<double>& v = values[c.overrides.dump()];
    MeanSd m = mean_and_sd(v);
    c.n = static_cast<long long>(v.size());
    c.mean = m.mean, c.sd = m.sd;
  }
  std::stable_sort(configs.begin(), configs.end(), [&](const ConfigurationRow& a, const ConfigurationRow& b) {
    if (a.mean.has_value() != b.mean.has_value()) return a.mean.has_value();
    return a.mean && (t.higher_is_better ? *a.mean > *b.mean : *a.mean < *b.mean);
  });
  return configs;
}

std::vector<int> configuration_indices(const std::vector<SweepPoint>& points,
                                       const std::vector<std::string>& replicates) {
  std::vector<int> out;
  std::map<std::string, int> seen;
  for (const SweepPoint& p : points) {
    if (replicates.empty()) {
      out.push_back(-1);
      continue;
    }
    std::string key;
    for (const Assignment& a : p.varying)
      if (!is_replicate(a.key, replicates)) key += a.key + "=" + a.text() + "\n";
    out.push_back(seen.emplace(key, static_cast<int>(seen.size())).first->second);
  }
  return out;
}

}  // namespace runner
