#include "hub/hub_download.h"

#include "hub/download_progress.h"
#include "hub/file_lock.h"
#include "hub/http_errors.h"
#include "util/diagnostic.h"
#include "util/numbers.h"
#include "util/sha256.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

// ETag values come quoted, and weak ones prefixed with W/.
std::string clean_etag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return etag;
}

// -1 (size unknown) for anything but a size a file can have.
long long parse_size(const std::string& text) {
  std::string why;
  return parse_integer(text, why, 0).value_or(-1);
}

std::string percent_encode_slashes(const std::string& revision) {
  std::string out;
  for (char c : revision) out += c == '/' ? std::string("%2F") : std::string(1, c);
  return out;
}

std::string origin_of(const std::string& url) {
  size_t scheme = url.find("://");
  size_t path = scheme == std::string::npos ? std::string::npos : url.find('/', scheme + 3);
  return path == std::string::npos ? url : url.substr(0, path);
}

// An etag names a file in blobs/: it must not reach outside it.
bool is_safe_file_name(const std::string& etag) {
  return !etag.empty() && etag.size() < 200 && std::all_of(etag.begin(), etag.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

[[noreturn]] void bad_answer(const std::string& what, const std::string& url, const std::string& missing) {
  throw InputError(make_error(SourceLocation{{}, 0, 0, url}, "",
                              what + ": the server's answer has no " + missing + " header",
                              "HF_ENDPOINT must point at a Hugging Face Hub (or a mirror that sends its headers)"));
}

}  // namespace

std::string cached_file_sha256(const std::string& snapshot_path) {
  std::error_code ec;
  fs::path target = fs::read_symlink(snapshot_path, ec);
  if (!ec && is_sha256_hex(target.filename().string())) return target.filename().string();
  return digest::sha256_file(snapshot_path);
}

std::string HubDownloader::resolve_url(const RepoId& repo, const std::string& revision,
                                       const std::string& file) const {
  return settings_.endpoint + "/" + repo.name + "/resolve/" + percent_encode_slashes(revision) + "/" + file;
}

std::optional<FileMetadata> HubDownloader::metadata(const RepoId& repo, const std::string& revision,
                                                    const std::string& file) const {
  const std::string what = repo.str() + ": " + file;
  HttpRequest req;
  req.url = resolve_url(repo, revision, file);
  req.head = true;
  req.follow_redirects = false;  // an LFS file redirects to its storage: keep the Hub's headers
  req.timeout_s = settings_.timeout_s;
  if (!settings_.token.empty()) req.headers.push_back("Authorization: Bearer " + settings_.token);
  HttpResponse r = fetch_with_retries(req, settings_);
  // A relative redirect is a renamed repository: follow it on the Hub itself.
  for (int hops = 0; r.status >= 301 && r.status <= 308 && r.header("location").rfind("/", 0) == 0 && hops < 5; ++hops) {
    req.url = origin_of(req.url) + r.header("location");
    r = fetch_with_retries(req, settings_);
  }
  if (r.status == 404 && r.header("x-error-code") == "EntryNotFound") {
    if (std::string commit = r.header("x-repo-commit"); is_commit_hash(commit)) cache_.mark_missing(repo, commit, file);
    return std::nullopt;
  }
  if (!(r.status == 200 || (r.status >= 301 && r.status <= 308))) throw_request_error(what, req.url, r, settings_);
  FileMetadata m;
  m.commit = r.header("x-repo-commit");
  m.etag = clean_etag(r.header("x-linked-etag").empty() ? r.header("etag") : r.header("x-linked-etag"));
  m.size = parse_size(r.header("x-linked-size").empty() ? r.header("content-length") : r.header("x-linked-size"));
  m.download_url = r.status == 200 ? req.url : r.header("location");
  if (!is_commit_hash(m.commit)) bad_answer(what, req.url, "X-Repo-Commit");
  if (!is_safe_file_name(m.etag)) bad_answer(what, req.url, "usable ETag");
  if (r.status != 200 && m.download_url.rfind("/", 0) == 0) m.download_url = origin_of(req.url) + m.download_url;
  return m;
}

std::optional<FetchedFile> HubDownloader::fetch(const RepoId& repo, const std::string& file,
                                                std::string* commit) const {
  std::string revision = commit->empty() ? repo.revision : *commit;
  std::optional<FileMetadata> meta = metadata(repo, revision, file);
  if (!meta) return std::nullopt;
  if (commit->empty()) {
    *commit = meta->commit;
    cache_.write_ref(repo, meta->commit);
  }
  FetchedFile out{file, "", "", false};
  if (auto have = cache_.snapshot_file(repo, meta->commit, file)) {
    out.path = *have;
  } else {
    out.downloaded = !fs::exists(cache_.blob_path(repo, meta->etag));
    download_blob(repo, file, *meta);
    out.path = cache_.link_snapshot(repo, meta->commit, file, meta->etag);
  }
  out.sha256 = is_sha256_hex(meta->etag) ? meta->etag : digest::sha256_file(out.path);
  return out;
}

std::string HubDownloader::download_blob(const RepoId& repo, const std::string& file,
                                         const FileMetadata& meta) const {
  const std::string blob = cache_.blob_path(repo, meta.etag);
  if (fs::exists(blob)) return blob;
  FileLock lock(cache_.lock_path(repo, meta.etag));
  if (fs::exists(blob)) return blob;  // another run or rank fetched it while we waited
  const std::string incomplete = cache_.incomplete_path(repo, meta.etag);
  download_to_incomplete(repo, file, meta, incomplete);
  verify_and_store(repo, file, meta, incomplete, blob);
  return blob;
}

void HubDownloader::download_to_incomplete(const RepoId& repo, const std::string& file, const FileMetadata& meta,
                                           const std::string& incomplete) const {
  const std::string what = repo.str() + ": " + file;
  DownloadProgress progress(what, meta.size, settings_.progress_bar);
  HttpResponse r;
  for (int attempt = 1; attempt <= settings_.max_tries; ++attempt) {
    if (attempt > 1) back_off(settings_, attempt);
    std::error_code ec;
    long long have = fs::exists(incomplete) ? static_cast<long long>(fs::file_size(incomplete, ec)) : 0;
    if (meta.size >= 0 && have == meta.size) return;  // complete already: only the check is left
    fs::create_directories(fs::path(incomplete).parent_path(), ec);
    std::ofstream out(incomplete, std::ios::binary | std::ios::app);
    if (!out)
      throw InputError(make_error(SourceLocation{incomplete, 0, 0, {}}, "", "cannot write the download",
                                  "check that the cache folder is writable, or point HF_HUB_CACHE elsewhere"));
    HttpRequest req;
    req.url = meta.download_url;
    req.range_from = have;
    req.timeout_s = settings_.timeout_s;
    if (!settings_.token.empty() && origin_of(req.url) == origin_of(settings_.endpoint))
      req.headers.push_back("Authorization: Bearer " + settings_.token);  // never to a storage host
    req.on_body = [&out](const char* d, size_t n) { return static_cast<bool>(out.write(d, static_cast<std::streamsize>(n))); };
    req.on_progress = [&progress, have](long long now, long long) { progress.update(have + now); };
    r = http_fetch(req);
    r.tries = attempt;
    out.close();
    if (r.status == 200 && have > 0) {  // the server ignored Range and sent it all: start over
      fs::resize_file(incomplete, 0);
      continue;
    }
    if (r.transport_error.empty() && (r.status == 200 || r.status == 206)) {
      progress.finish(static_cast<long long>(fs::file_size(incomplete)));
      return;
    }
    if (!is_retriable(r)) break;
  }
  throw_request_error(what, meta.download_url, r, settings_);
}

void HubDownloader::verify_and_store(const RepoId& repo, const std::string& file, const FileMetadata& meta,
                                     const std::string& incomplete, const std::string& blob) const {
  long long got = static_cast<long long>(fs::file_size(incomplete));
  std::string problem;
  if (meta.size >= 0 && got != meta.size) problem = fmt::format("{} bytes arrived, the Hub announced {}", got, meta.size);
  if (problem.empty() && is_sha256_hex(meta.etag)) {
    std::string sha = digest::sha256_file(incomplete);
    if (sha != meta.etag) problem = fmt::format("its sha256 is {}, the Hub's LFS etag is {}", sha, meta.etag);
  }
  if (!problem.empty()) {
    fs::remove(incomplete);  // a damaged body is never resumed or stored
    throw InputError(make_error(SourceLocation{{}, 0, 0, meta.download_url}, "",
                                fmt::format("{}: {}: the download is damaged ({}); nothing was stored in the cache",
                                            repo.str(), file, problem),
                                "run again to download it afresh; if it persists, the server or a proxy "
                                "alters the file"));
  }
  std::error_code ec;
  fs::rename(incomplete, blob, ec);
  if (ec)
    throw InputError(make_error(SourceLocation{blob, 0, 0, {}}, "", "cannot store the download: renaming " + incomplete + " into blobs/ failed",
                                "check that the cache folder is writable"));
}

}  // namespace runner::hub
