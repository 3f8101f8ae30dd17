#include "run/run_dir.h"

#include "util/synced_file.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include "runner_build_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace runner {
namespace {

// The current UTC time in a strftime format.
std::string utc_now(const char* format) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string utc_compact() { return utc_now("%Y%m%dT%H%M%SZ"); }

// The largest id among <parent>/<stamp>-<6 hex> folders, or -1 when none.
long largest_id_at(const std::string& parent, const std::string& stamp) {
  long largest = -1;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    std::string leaf = e.path().filename().string();
    if (leaf.size() != stamp.size() + 7 || leaf.compare(0, stamp.size() + 1, stamp + "-") != 0) continue;
    char* end = nullptr;
    long id = std::strtol(leaf.c_str() + stamp.size() + 1, &end, 16);
    if (*end == '\0') largest = std::max(largest, id);
  }
  return largest;
}

// A 6-hex id that sorts after every run already made in this second, so the
// largest folder name stays the newest run; random within its range, so two
// processes starting together rarely race for one name. Empty when the
// second's ids are used up.
std::string next_id(const std::string& parent, const std::string& stamp) {
  std::random_device rd;
  long largest = largest_id_at(parent, stamp);
  long id = largest < 0 ? long(rd() & 0x7fffff) : largest + 1 + long(rd() & 0xfff);
  return id > 0xffffff ? "" : fmt::format("{:06x}", id);
}

void check_writable(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || ::access(dir.c_str(), W_OK) != 0)
    throw InputError(make_error(
        {}, "run.output_dir",
        fmt::format("cannot write to {}: {}", dir, ec ? ec.message() : std::strerror(errno)),
        "set run.output_dir to a writable directory"));
}

}  // namespace

RunPaths create_run_dir(const std::string& output_dir, const std::string& run_name) {
  const bool output_dir_existed = fs::exists(output_dir);
  check_writable(output_dir);
  std::string parent = output_dir + "/" + run_name;
  for (int attempt = 0; attempt < 64; ++attempt) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    std::string stamp = utc_compact(), id = next_id(parent, stamp);
    if (id.empty()) {  // thousands of runs in one second: the next second has room
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    RunPaths p{parent + "/" + stamp + "-" + id, !output_dir_existed};
    if (fs::create_directory(p.dir, ec)) {
      fs::create_directories(p.checkpoints());
      return p;
    }
  }
  throw InputError(make_error({}, "run.output_dir", "cannot create a run directory under " + parent,
                              "check the directory's permissions"));
}

nlohmann::json read_json_file(const std::string& path) {
  return read_json_document(path, "", "pass a run directory written by `runner run`");
}

std::string utc_timestamp() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

std::string libtorch_version() { return RUNNER_LIBTORCH_VERSION; }

void write_text_atomic(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  try {
    write_file_synced(tmp, text);
  } catch (...) {  // a full disk: the record before stays, and no .tmp beside it
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(errno)));
}

// Strings in a record may quote bytes that are not UTF-8 (an error naming a damaged
// file): written as U+FFFD, where a strict dump would throw while the run is recorded.
void write_json_atomic(const std::string& path, const nlohmann::json& j) {
  write_text_atomic(path, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace runner
