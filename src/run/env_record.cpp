#include "run/env_record.h"

#include "util/diagnostic.h"
#include "util/json_input.h"

#include <filesystem>

namespace runner {

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

nlohmann::json read_env_record(const RunPaths& paths) { return read_json_file(paths.env()); }

nlohmann::json read_env_record_if_present(const RunPaths& paths) {
  std::error_code ec;
  if (!std::filesystem::exists(paths.env(), ec)) return nlohmann::json::object();
  return read_json_document(paths.env(), "",
                            "the file is damaged or was cut short; the run's other records are untouched, but "
                            "this one has to be restored or the run left out");
}

void record_environment(const RunPaths& paths, const SessionRecord& r) {
  if (r.resuming) {
    nlohmann::json env = read_env_record(paths);
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
