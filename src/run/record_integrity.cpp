#include "run/record_integrity.h"

#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/sha256.h"
#include "util/synced_file.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include <sys/stat.h>

namespace fs = std::filesystem;

namespace runner {

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

}  // namespace runner
