#include "run/run_changes.h"

#include "util/diagnostic.h"
#include "util/sha256.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <set>

namespace runner {
namespace {

// A JSON pointer as the user reads it: "/train/epochs" -> "train.epochs", and
// a file's key unescaped as content_changes spells it ("/content_sha256/~1d~1a.tsv"
// -> "content_sha256./d/a.tsv"): the pointer's ~1 is '/' and ~0 is '~'.
std::string dotted(const std::string& pointer) {
  std::string out;
  for (size_t i = pointer.empty() ? 0 : 1; i < pointer.size(); ++i) {
    bool escape = pointer[i] == '~' && i + 1 < pointer.size();
    if (escape) out += pointer[++i] == '1' ? '/' : '~';
    else out += pointer[i] == '/' ? '.' : pointer[i];
  }
  return out;
}

std::vector<RunChange> flat_changes(const nlohmann::json& before, const nlohmann::json& after,
                                    const std::string& prefix) {
  nlohmann::json a = before.flatten(), b = after.flatten();
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  std::vector<RunChange> out;
  for (const auto& k : keys) {
    bool in_a = a.contains(k), in_b = b.contains(k);
    if (in_a && in_b && a[k] == b[k]) continue;
    out.push_back({prefix + dotted(k), in_a ? a[k].dump() : "(absent)", in_b ? b[k].dump() : "(absent)"});
  }
  return out;
}

bool allowed_key(const std::string& key, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (key == a || (key.size() > a.size() && key.compare(0, a.size(), a) == 0 && key[a.size()] == '.'))
      return true;
  return false;
}

// The settings that split the global batch. A resume checks them against the
// checkpoint (train/batch_topology.h) instead of requiring them unchanged.
const char* const kBatchSplitKeys[] = {"topology.processes_per_node", "topology.nodes",
                                       "data.train_batch_size", "train.grad_accum"};

bool splits_batch(const RunChange& c) {
  return std::any_of(std::begin(kBatchSplitKeys), std::end(kBatchSplitKeys),
                     [&c](const char* k) { return c.key == k; });
}

}  // namespace

std::vector<RunChange> recipe_changes(const nlohmann::json& before, const nlohmann::json& after) {
  return flat_changes(before, after, "");
}

std::vector<RunChange> content_changes(const nlohmann::json& before, const nlohmann::json& after) {
  std::vector<RunChange> out;
  std::set<std::string> paths;
  for (const auto& [k, v] : before.items()) paths.insert(k);
  for (const auto& [k, v] : after.items()) paths.insert(k);
  for (const auto& p : paths) {
    std::string a = before.contains(p) ? before[p].dump() : "(absent)";
    std::string b = after.contains(p) ? after[p].dump() : "(absent)";
    if (a != b) out.push_back({"content_sha256." + p, a, b});
  }
  return out;
}

void check_changes(const std::vector<RunChange>& changes, const std::vector<std::string>& allowed,
                   const std::string& run_dir) {
  std::string diff;
  std::vector<std::string> keys;
  for (const auto& c : changes) {
    if (allowed_key(c.key, allowed)) continue;
    diff += fmt::format("\n    {}: {} -> {}", c.key, c.before, c.after);
    keys.push_back(c.key);
  }
  if (keys.empty()) return;
  throw InputError(make_error(
      SourceLocation{run_dir, 0, 0, ""}, "",
      fmt::format("the run would resume with {} change{} from what it was started with:{}",
                  keys.size(), keys.size() == 1 ? "" : "s", diff),
      fmt::format("undo the change, or accept it with --allow-changes {}", fmt::join(keys, ","))));
}

nlohmann::json content_hashes(const std::vector<std::string>& paths) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& p : paths) {
    try {
      out[p] = digest::sha256_file(p);
    } catch (const InputError&) {
      throw;  // it names the file and what is wrong already
    } catch (const std::exception& e) {
      throw InputError(make_error(SourceLocation{p, 0, 0, ""}, "", std::string("cannot hash: ") + e.what(),
                                  "check that the data and tokenizer files are readable"));
    }
  }
  return out;
}

std::vector<RunChange> resume_changes(const ResumeInputs& in, const std::vector<std::string>& allowed,
                                      const std::string& run_dir) {
  std::vector<RunChange> changes = recipe_changes(in.recorded_recipe, in.recipe);
  changes.erase(std::remove_if(changes.begin(), changes.end(), splits_batch), changes.end());
  for (auto& c : content_changes(in.recorded_hashes, content_hashes(in.content_files)))
    changes.push_back(std::move(c));
  check_changes(changes, allowed, run_dir);
  return changes;
}

}  // namespace runner
