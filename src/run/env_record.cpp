#include "run/env_record.h"

#include "hub/named_sources.h"
#include "run/run_changes.h"
#include "util/cpu_info.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/process_info.h"

#include "runner_build_config.h"
#include "util/built_commit.h"

#include <filesystem>

namespace runner {
namespace {

// A text field, or "" where a hand edit left another type: readers leave it out.
std::string text_of(const nlohmann::json& record, const char* key) { return record_string(record, key); }

}  // namespace

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

EnvRecord env_record_from(const nlohmann::json& record) {
  EnvRecord e;
  if (!record.is_object()) return e;
  e.record = record;
  e.runner_version = text_of(record, "runner_version");
  e.git_commit = text_of(record, "git_commit");
  e.compiler = text_of(record, "compiler");
  e.libtorch_version = text_of(record, "libtorch_version");
  e.host = text_of(record, "host");
  e.cpu_model = text_of(record, "cpu_model");
  e.gpu_model = text_of(record, "gpu_model");
  e.device = text_of(record, "device");
  e.started_utc = text_of(record, "started_utc");
  e.threads = static_cast<int>(record_integer(record, "threads"));
  const nlohmann::json origin = record_object(record, "recipe");
  e.origin.path = record_string(origin, "path");
  for (const auto& o : record_array(origin, "overrides"))
    if (o.is_string()) e.origin.overrides.push_back(o.get<std::string>());
  const nlohmann::json hashes = record_object(record, "content_sha256");  // items() must not outlive it
  for (const auto& [path, hash] : hashes.items()) e.content_sha256[path] = hash.is_string() ? hash.get<std::string>() : hash.dump();
  return e;
}

EnvRecord read_env_record(const RunPaths& paths) { return env_record_from(read_json_file(paths.env())); }

EnvRecord read_env_record_if_present(const RunPaths& paths) {
  std::error_code ec;
  if (!std::filesystem::exists(paths.env(), ec)) return {};
  return env_record_from(read_json_document(
      paths.env(), "",
      "the file is damaged or was cut short; the run's other records are untouched, but "
      "this one has to be restored or the run left out"));
}

nlohmann::json environment_info(const EnvInputs& in) {
  return {{"runner_version", RUNNER_VERSION},
          {"git_commit", built_commit()},
          {"compiler", RUNNER_COMPILER},
          {"libtorch_version", libtorch_version()},
          {"cpu_model", cpu_model()},
          {"cpu_native_bf16", cpu_has_native_bf16()},
          {"gpu_model", gpu_model()},
          {"device", in.device},
          {"threads", in.threads},
          {"host", host_name()},
          {"command_line", in.command_line},
          {"seeds", in.seeds},
          {"content_sha256", content_hashes(in.hashed_files)},
          {"name_resolution", hub::resolution_log()},  // where the model, tokenizer and data came from
          {"started_utc", utc_timestamp()}};
}


void record_environment(const RunPaths& paths, const SessionRecord& r) {
  if (r.resuming) {
    nlohmann::json env = read_env_record(paths).record;
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
