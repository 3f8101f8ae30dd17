#include "run/run_records.h"

#include "recipe/emit.h"
#include "train/checkpoint_io.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/numbers.h"
#include "util/process_info.h"
#include "util/sha256.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <sys/stat.h>

namespace fs = std::filesystem;

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

// Whether a metrics.jsonl line belongs to a step after `step`.
bool jsonl_after(const std::string& line, long long step) {
  std::string why;
  std::optional<nlohmann::json> j = try_parse_json(line, why);
  if (!j || !j->is_object()) return true;  // a line torn by a kill: drop it
  return j->contains("step") && (*j)["step"].is_number() && (*j)["step"].get<double>() > static_cast<double>(step);
}

// Whether a train.log line ("... train step=12/40 epoch=0 loss=...", or an
// older "train loss=... step=12") belongs to a step after `step`.
bool text_after(const std::string& line, long long step) {
  auto at = line.find(" step=");
  if (at == std::string::npos) return false;
  std::string digits = line.substr(at + 6, line.find_first_of(" /", at + 6) - (at + 6)), why;
  std::optional<long long> n = parse_integer(digits, why);
  return n && *n > step;
}

void cut_file(const std::string& path, long long step,
              bool (*after)(const std::string&, long long)) {
  std::ifstream in(path);
  if (!in) return;
  std::string kept, line;
  while (std::getline(in, line))
    if (!after(line, step)) kept += line + "\n";
  in.close();
  std::string tmp = path + ".tmp";
  write_file_synced(tmp, kept);
  fs::rename(tmp, path);
}

}  // namespace

void copy_given_recipe(const Recipe& recipe, const RunPaths& paths) {
  fs::path main(recipe.path);
  fs::copy_file(main, paths.recipe_as_given() + main.extension().string(),
                fs::copy_options::overwrite_existing);
  for (const auto& f : recipe.files) {
    if (fs::equivalent(f, main)) continue;
    fs::create_directories(paths.recipe_as_given() + ".d");
    fs::copy_file(f, paths.recipe_as_given() + ".d/" + fs::path(f).filename().string(),
                  fs::copy_options::overwrite_existing);
  }
}

void write_resolved_recipe(const Recipe& recipe, const RunPaths& paths) {
  std::string tmp = paths.recipe_resolved() + ".tmp";
  write_file_synced(tmp, emit_recipe(recipe.resolved, RecipeFormat::Json));
  fs::rename(tmp, paths.recipe_resolved());
}

nlohmann::json read_json_file(const std::string& path) {
  return read_json_document(path, "", "pass a run directory written by `runner run`");
}

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

void require_own_records(const RunPaths& paths) {
  for (const std::string& path :
       {paths.summary(), paths.recipe_resolved(), paths.env(), paths.metrics(), paths.log()}) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) continue;  // absent, or a file of its own
    throw InputError(make_error(SourceLocation{path, 0, 0, {}}, "",
                                "expected the run's own record, a regular file, found " + file_kind(st.st_mode) +
                                    "; nothing in the run was changed",
                                "put the run's own file back (a run writes it itself), or start a new run"));
  }
}

void write_folder_manifest(const std::string& dir) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file())
      files[e.path().filename().string()] = {{"sha256", digest::sha256_file(e.path().string())},
                                             {"bytes", static_cast<long long>(e.file_size())}};
  write_file_synced(dir + "/manifest.json", nlohmann::json{{"format", 1}, {"files", files}}.dump(2) + "\n");
}

double latest_elapsed_seconds(const RunPaths& paths) {
  // The newest lines are at the end, and a metrics file may be gigabytes: its last 64 KiB are read.
  std::ifstream in(paths.metrics(), std::ios::binary | std::ios::ate);
  if (!in) return 0.0;
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - (64 << 10));
  in.seekg(from);
  std::string line;
  if (from > 0) std::getline(in, line);  // the part of a line the read began in
  double latest = 0.0;
  while (std::getline(in, line)) {
    std::string why;
    std::optional<nlohmann::json> event = try_parse_json(line, why);
    if (event && event->is_object()) latest = std::max(latest, number_at(*event, "elapsed_s").value_or(0.0));
  }
  return latest;
}

void cut_event_logs(const RunPaths& paths, long long step) {
  cut_file(paths.metrics(), step, jsonl_after);
  cut_file(paths.log(), step, text_after);
}

nlohmann::json origin_json(const RecipeOrigin& o) {
  return {{"path", o.path}, {"overrides", o.overrides}};
}

RecipeOrigin origin_from_env(const nlohmann::json& env, const std::string& env_path) {
  const nlohmann::json recipe = record_object(env, "recipe");
  RecipeOrigin origin{record_string(recipe, "path"), {}};
  bool overrides_ok = true;
  for (const auto& o : record_array(recipe, "overrides"))
    if (o.is_string()) origin.overrides.push_back(o.get<std::string>());
    else overrides_ok = false;
  if (origin.path.empty() || !overrides_ok)
    throw InputError(make_error(SourceLocation{env_path, 0, 0, ""}, "recipe",
                                origin.path.empty() ? "no recipe path recorded"
                                                    : "recipe.overrides holds something other than --set strings",
                                "pass a run directory written by `runner run` (env.json may have been edited)"));
  return origin;
}

std::string newest_unfinished_run(const std::string& output_dir, const std::string& run_name) {
  auto dirs = list_run_dirs(output_dir, run_name);
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    RunPaths p{*it};
    if (!fs::exists(p.env())) continue;
    std::string status;
    try {
      nlohmann::json summary = read_json_document(p.summary());
      status = summary.is_object() ? record_string(summary, "status", "") : "";
    } catch (const std::exception&) {
      status.clear();  // no summary yet: the run was killed early
    }
    if (status != "completed") return *it;
  }
  return {};
}

ResumePoint find_resume_point(const RunPaths& paths) {
  ResumePoint rp;
  auto warn = [&rp](const std::string& m) { rp.warnings.push_back(m); };
  std::optional<std::string> ckpt = newest_valid_checkpoint(paths.checkpoints(), warn);
  if (!ckpt) {
    rp.warnings.push_back("no valid checkpoint in " + paths.checkpoints() +
                          "; training starts again from step 0");
    return rp;
  }
  rp.checkpoint = *ckpt;
  rp.step = checkpoint_step(fs::path(*ckpt).filename().string()).value_or(0);
  return rp;
}

void record_environment(const RunPaths& paths, const SessionRecord& r) {
  if (r.resuming) {
    nlohmann::json env = read_json_file(paths.env());
    env["recipe"] = origin_json(r.origin);
    env["resumes"].push_back(
        {{"utc", utc_timestamp()}, {"command_line", r.command_line}, {"threads", r.threads}});
    write_json_atomic(paths.env(), env);
    return;
  }
  EnvInputs in;
  in.command_line = r.command_line;
  in.seeds = {{"run.seed", r.seed}, {"data_order_seed", r.seed}};
  in.hashed_files = r.hashed_files;
  in.threads = r.threads;
  in.device = r.device;
  nlohmann::json env = environment_info(in);
  env["recipe"] = origin_json(r.origin);
  env["run_dir"] = paths.dir;
  write_json_atomic(paths.env(), env);
}

}  // namespace runner
