#include "hub/dataset_download.h"

#include "hub/download_progress.h"
#include "hub/file_lock.h"
#include "hub/http_errors.h"
#include "util/diagnostic.h"
#include "util/sha256.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>
#include <zip.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

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

// The mirror variable replaces every source's folder (a mirror, or the tests' server).
std::string url_of(const SourceFile& f, const std::string& variable) {
  const char* base = std::getenv(variable.c_str());
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
void download_source(const DatasetFolderPlan& plan, const SourceFile& f, const fs::path& dir,
                     const HubSettings& s) {
  HttpRequest req;
  req.url = url_of(f, plan.mirror_variable);
  req.timeout_s = s.timeout_s;
  DownloadProgress progress(plan.label + " " + f.name, -1, s.progress_bar);
  req.on_progress = [&progress](long long now, long long) { progress.update(now); };
  HttpResponse r = fetch_with_retries(req, s);
  if (r.status != 200 || !r.transport_error.empty())
    throw_request_error(plan.label + " source " + f.name, req.url, r, s, plan.mirror_variable);
  std::string found = f.algorithm == "md5" ? md5_hex(r.body) : digest::sha256_hex(r.body);
  if (found != f.digest)
    throw InputError(make_error(SourceLocation{{}, 0, 0, req.url}, "",
                                fmt::format("{} source {}: its {} is {}, expected {}; nothing was stored", plan.label,
                                            f.name, f.algorithm, found, f.digest),
                                fmt::format("the file on the server is not {}'s: check {}, or try again later",
                                            plan.label, plan.mirror_variable)));
  progress.finish(static_cast<long long>(r.body.size()));
  write_file(dir / f.name, r.body);
}

bool folder_complete(const DatasetFolderPlan& plan) {
  for (const auto& split : plan.split_files)
    if (!fs::is_regular_file(fs::path(plan.dir) / split)) return false;
  return true;
}

void build_folder(const DatasetFolderPlan& plan, const HubSettings& s) {
  fs::path work = plan.dir + ".partial" + std::to_string(getpid());
  fs::remove_all(work);
  fs::create_directories(work / "source");
  try {
    for (const auto& f : plan.sources) download_source(plan, f, work / "source", s);
    plan.build((work / "source").string(), work.string());
  } catch (...) {
    fs::remove_all(work);  // a refused source leaves nothing behind
    throw;
  }
  fs::rename(work, plan.dir);  // readers see the whole folder or none
}

[[noreturn]] void bad_archive(const std::string& file, const std::string& what) {
  throw InputError(make_error(SourceLocation{file, 0, 0, {}}, "", what,
                              "the source file is not the publisher's: delete it from $RUNNER_CACHE/datasets and "
                              "fetch again"));
}

}  // namespace

Resolution fetch_dataset_folder(const DatasetFolderPlan& plan, const HubSettings& s) {
  Resolution r;
  r.name = plan.name;
  r.kind = "dataset";
  r.source = "dataset_cache";
  r.folder = plan.dir;
  if (!folder_complete(plan)) {
    if (s.offline)
      throw InputError(make_error(
          SourceLocation{{}, 0, 0, r.name}, "",
          fmt::format("offline mode (HF_HUB_OFFLINE / RUNNER_OFFLINE): {} is not in the dataset cache {}",
                      plan.name, plan.dir),
          "run `runner fetch " + plan.name + "` where there is a network, with the same RUNNER_CACHE"));
    const fs::path dir(plan.dir);
    fs::create_directories(dir.parent_path());
    FileLock lock((dir.parent_path() / ("." + dir.filename().string() + ".lock")).string());
    if (!folder_complete(plan)) {
      build_folder(plan, s);
      r.source = "download";
    }
  }
  for (const auto& split : plan.split_files)
    r.files.emplace_back(split, digest::sha256_file((fs::path(plan.dir) / split).string()));
  return r;
}

void extract_zip_members(const std::string& zip_path,
                         const std::vector<std::pair<std::string, std::string>>& members,
                         const std::string& out_dir) {
  int err = 0;
  std::unique_ptr<zip_t, int (*)(zip_t*)> archive(zip_open(zip_path.c_str(), ZIP_RDONLY, &err), zip_close);
  if (!archive) bad_archive(zip_path, fmt::format("not a readable zip archive (libzip error {})", err));
  for (const auto& [entry, file] : members) {
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> in(zip_fopen(archive.get(), entry.c_str(), 0), zip_fclose);
    if (!in) bad_archive(zip_path, "the archive has no " + entry);
    std::ofstream out(fs::path(out_dir) / file, std::ios::binary | std::ios::trunc);
    char buffer[1 << 16];
    for (zip_int64_t n; (n = zip_fread(in.get(), buffer, sizeof buffer)) != 0;) {
      if (n < 0) bad_archive(zip_path, "cannot unpack " + entry + " (damaged archive)");
      out.write(buffer, n);
    }
    if (!out) bad_archive(out_dir, "cannot write " + file);
  }
}

}  // namespace runner::hub
