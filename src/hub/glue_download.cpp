#include "hub/glue_download.h"

#include "hub/glue_tasks.h"

#include "hub/download_progress.h"
#include "hub/file_lock.h"
#include "hub/http_errors.h"
#include "util/diagnostic.h"
#include "util/sha256.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

std::string md5_hex(const std::string& bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &n, EVP_md5(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < n; ++i) hex += fmt::format("{:02x}", out[i]);
  return hex;
}

// $RUNNER_GLUE_URL replaces every source's folder (a mirror, or the tests' server).
std::string url_of(const GlueSource& f) {
  const char* base = std::getenv("RUNNER_GLUE_URL");
  if (!base || !*base) return f.default_url;
  std::string b = base;
  while (!b.empty() && b.back() == '/') b.pop_back();
  return b + "/" + f.name;
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out)
    throw InputError(make_error(SourceLocation{path.string(), 0, 0, {}}, "", "cannot write the dataset cache",
                                "check that $RUNNER_CACHE is writable"));
}

// One source file, downloaded and checked, written into `dir`.
void download_source(const GlueSource& f, const fs::path& dir, const HubSettings& s) {
  HttpRequest req;
  req.url = url_of(f);
  req.timeout_s = s.timeout_s;
  DownloadProgress progress("GLUE " + f.name, -1, s.progress_bar);
  req.on_progress = [&progress](long long now, long long) { progress.update(now); };
  HttpResponse r = fetch_with_retries(req, s);
  if (r.status != 200 || !r.transport_error.empty()) throw_request_error("GLUE source " + f.name, req.url, r, s);
  std::string found = f.algorithm == "md5" ? md5_hex(r.body) : digest::sha256_hex(r.body);
  if (found != f.digest)
    throw InputError(make_error(SourceLocation{{}, 0, 0, req.url}, "",
                                fmt::format("GLUE source {}: its {} is {}, expected {}; nothing was stored", f.name,
                                            f.algorithm, found, f.digest),
                                "the file on the server is not GLUE's: check RUNNER_GLUE_URL, or try again later"));
  progress.finish(static_cast<long long>(r.body.size()));
  write_file(dir / f.name, r.body);
}

bool task_complete(const GlueTaskFiles& task, const fs::path& dir) {
  for (const auto& split : task.split_files)
    if (!fs::is_regular_file(dir / split)) return false;
  return true;
}

void build_task(const GlueTaskFiles& task, const fs::path& final_dir, const HubSettings& s) {
  fs::path work = final_dir.string() + ".partial" + std::to_string(getpid());
  fs::remove_all(work);
  fs::create_directories(work / "source");
  try {
    for (const auto& f : task.sources) download_source(f, work / "source", s);
    if (task.task == "mrpc")
      build_mrpc((work / "source/msr_paraphrase_train.txt").string(),
                 (work / "source/msr_paraphrase_test.txt").string(), (work / "source/mrpc_dev_ids.tsv").string(),
                 work.string());
    else
      extract_glue_zip((work / "source" / task.sources.front().name).string(), task.folder, task.split_files,
                       work.string());
  } catch (...) {
    fs::remove_all(work);  // a refused source leaves nothing behind
    throw;
  }
  fs::rename(work, final_dir);  // readers see the whole folder or none
}

}  // namespace

std::optional<std::string> glue_task_of_folder(const std::string& folder) {
  for (const auto& t : glue_tasks())
    if (folder == "glue/" + t.folder) return t.task;
  return std::nullopt;
}

Resolution fetch_glue_task(const std::string& name, const std::string& dataset_cache, const HubSettings& s) {
  const GlueTaskFiles* task = find_glue_task(name);
  if (!task)
    throw InputError(make_error(SourceLocation{{}, 0, 0, "glue/" + name}, "", "GLUE has no task \"" + name + "\"",
                                "name one of " + glue_task_names()));
  fs::path dir = fs::path(dataset_cache) / "glue" / task->folder;
  Resolution r;
  r.name = "glue/" + name;
  r.kind = "dataset";
  r.source = "dataset_cache";
  r.folder = dir.string();
  if (!task_complete(*task, dir)) {
    if (s.offline)
      throw InputError(make_error(
          SourceLocation{{}, 0, 0, r.name}, "",
          fmt::format("offline mode (HF_HUB_OFFLINE / RUNNER_OFFLINE): GLUE {} is not in the dataset cache {}",
                      task->folder, dir.string()),
          "run `runner fetch glue/" + name + "` where there is a network, with the same RUNNER_CACHE"));
    fs::create_directories(dir.parent_path());
    FileLock lock((dir.parent_path() / ("." + task->folder + ".lock")).string());
    if (!task_complete(*task, dir)) {
      build_task(*task, dir, s);
      r.source = "download";
    }
  }
  for (const auto& split : task->split_files) r.files.emplace_back(split, digest::sha256_file((dir / split).string()));
  return r;
}

std::string glue_task_names() {
  std::string out;
  for (const auto& t : glue_tasks()) out += (out.empty() ? "glue/" : ", glue/") + t.task;
  return out;
}

}  // namespace runner::hub
