#include "hub/glue_download.h"

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

struct SourceFile {
  std::string name;
  std::string default_url;
  std::string algorithm;  // "sha256" or "md5"
  std::string digest;     // pinned: what GLUE's own sources hash to
};

// The URLs GLUE's download_glue_data.py and Hugging Face `datasets` use. The
// MRPC digests are the ones `datasets` records; torchtext pins SST-2.zip's MD5.
std::vector<SourceFile> sources_of(const std::string& task) {
  if (task == "mrpc")
    return {{"msr_paraphrase_train.txt", "https://dl.fbaipublicfiles.com/senteval/senteval_data/msr_paraphrase_train.txt",
             "sha256", "60a9b09084528f0673eedee2b69cb941920f0b8cd0eeccefc464a98768457f89"},
            {"msr_paraphrase_test.txt", "https://dl.fbaipublicfiles.com/senteval/senteval_data/msr_paraphrase_test.txt",
             "sha256", "a04e271090879aaba6423d65b94950c089298587d9c084bf9cd7439bd785f784"},
            {"mrpc_dev_ids.tsv",
             "https://firebasestorage.googleapis.com/v0/b/mtl-sentence-representations.appspot.com/o/"
             "data%2Fmrpc_dev_ids.tsv?alt=media&token=ec5c0836-31d5-48f4-b431-7480817f1adc",
             "sha256", "971d7767d81b997fd9060ade0ec23c4fc31cbb226a55d1bd4a1bac474eb81dc7"}};
  return {{"SST-2.zip", "https://dl.fbaipublicfiles.com/glue/data/SST-2.zip", "md5", "9f81648d4199384278b86e315dac217c"}};
}

std::string folder_of(const std::string& task) { return task == "mrpc" ? "MRPC" : "SST-2"; }

std::string md5_hex(const std::string& bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &n, EVP_md5(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < n; ++i) hex += fmt::format("{:02x}", out[i]);
  return hex;
}

// $RUNNER_GLUE_URL replaces every source's folder (a mirror, or the tests' server).
std::string url_of(const SourceFile& f) {
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
void download_source(const SourceFile& f, const fs::path& dir, const HubSettings& s) {
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

bool task_complete(const fs::path& dir) {
  for (const char* split : {"train.tsv", "dev.tsv", "test.tsv"})
    if (!fs::is_regular_file(dir / split)) return false;
  return true;
}

void build_task(const std::string& task, const fs::path& final_dir, const HubSettings& s) {
  fs::path work = final_dir.string() + ".partial" + std::to_string(getpid());
  fs::remove_all(work);
  fs::create_directories(work / "source");
  try {
    for (const auto& f : sources_of(task)) download_source(f, work / "source", s);
    if (task == "mrpc")
      build_mrpc((work / "source/msr_paraphrase_train.txt").string(),
                 (work / "source/msr_paraphrase_test.txt").string(), (work / "source/mrpc_dev_ids.tsv").string(),
                 work.string());
    else
      extract_sst2((work / "source/SST-2.zip").string(), work.string());
  } catch (...) {
    fs::remove_all(work);  // a refused source leaves nothing behind
    throw;
  }
  fs::rename(work, final_dir);  // readers see the whole folder or none
}

}  // namespace

std::optional<std::string> glue_task_of_folder(const std::string& folder) {
  if (folder == "glue/MRPC") return "mrpc";
  if (folder == "glue/SST-2") return "sst2";
  return std::nullopt;
}

Resolution fetch_glue_task(const std::string& task, const std::string& dataset_cache, const HubSettings& s) {
  fs::path dir = fs::path(dataset_cache) / "glue" / folder_of(task);
  Resolution r;
  r.name = "glue/" + task;
  r.kind = "dataset";
  r.source = "dataset_cache";
  r.folder = dir.string();
  if (!task_complete(dir)) {
    if (s.offline)
      throw InputError(make_error(
          SourceLocation{{}, 0, 0, r.name}, "",
          fmt::format("offline mode (HF_HUB_OFFLINE / RUNNER_OFFLINE): GLUE {} is not in the dataset cache {}",
                      folder_of(task), dir.string()),
          "run `runner fetch glue/" + task + "` where there is a network, with the same RUNNER_CACHE"));
    fs::create_directories(dir.parent_path());
    FileLock lock((dir.parent_path() / ("." + folder_of(task) + ".lock")).string());
    if (!task_complete(dir)) {
      build_task(task, dir, s);
      r.source = "download";
    }
  }
  for (const char* split : {"train.tsv", "dev.tsv", "test.tsv"})
    r.files.emplace_back(split, digest::sha256_file((dir / split).string()));
  return r;
}

}  // namespace runner::hub
