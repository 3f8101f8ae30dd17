#include "train/checkpoint_io.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/numbers.h"
#include "util/output_check.h"
#include "util/sha256.h"
#include "util/synced_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace runner {
namespace {

constexpr const char* kManifest = "manifest.json";
constexpr const char* kTmpPrefix = ".tmp-";

void remove_stale_temporaries(const std::string& checkpoints_dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(checkpoints_dir, ec))
    if (e.path().filename().string().rfind(kTmpPrefix, 0) == 0) fs::remove_all(e.path(), ec);
}

struct FileDigest {
  std::string sha256;
  size_t bytes = 0;
};

// Each stretch is hashed and then written while it is still in the cache: the
// digest costs one pass over bytes that are being written anyway.
void hash_and_append(SyncedFile& out, digest::Sha256& sha, FileDigest& d, std::string_view bytes) {
  constexpr size_t kStretch = 4 << 20;
  for (size_t at = 0; at < bytes.size(); at += kStretch) {
    std::string_view part = bytes.substr(at, kStretch);
    sha.update(part);
    out.append(part);
    d.bytes += part.size();
  }
}

FileDigest write_hashed(const std::string& path, const CheckpointFile& f) {
  SyncedFile out(path);
  digest::Sha256 sha;
  FileDigest d;
  hash_and_append(out, sha, d, f.bytes);
  for (std::string_view piece : f.pieces) hash_and_append(out, sha, d, piece);
  out.finish();
  d.sha256 = sha.hex_digest();
  return d;
}

std::string manifest_bytes(const std::vector<CheckpointFile>& files, const std::vector<FileDigest>& digests) {
  nlohmann::json m = {{"format", 1}, {"files", nlohmann::json::object()}};
  for (size_t i = 0; i < files.size(); ++i)
    m["files"][files[i].name] = {{"sha256", digests[i].sha256}, {"bytes", digests[i].bytes}};
  return m.dump(2) + "\n";
}

void write_into(const std::string& tmp, const std::string& name, const std::vector<CheckpointFile>& files,
                const CheckpointWriteHook& hook) {
  fs::create_directories(tmp);
  std::vector<FileDigest> digests;
  for (const auto& f : files) {
    if (hook) hook(name, f.name);
    digests.push_back(write_hashed(tmp + "/" + f.name, f));
  }
  if (hook) hook(name, kManifest);
  write_file_synced(tmp + "/" + kManifest, manifest_bytes(files, digests));
  fsync_directory(tmp);
}

}  // namespace

std::string checkpoint_name(long long step) { return fmt::format("step-{:08d}", step); }

std::optional<long long> checkpoint_step(const std::string& name) {
  if (name.rfind("step-", 0) != 0 || name.size() <= 5) return std::nullopt;
  std::string digits = name.substr(5), why;
  if (!std::all_of(digits.begin(), digits.end(), ::isdigit)) return std::nullopt;
  return parse_integer(digits, why, 0);  // nullopt past 2^63 - 1: no run gets there
}

std::string write_checkpoint(const std::string& checkpoints_dir, const std::string& name,
                             const std::vector<CheckpointFile>& files,
                             const CheckpointWriteHook& hook) {
  fs::create_directories(checkpoints_dir);
  std::string final_dir = checkpoints_dir + "/" + name;
  if (fs::exists(final_dir) && verify_checkpoint(final_dir).empty()) return final_dir;
  remove_stale_temporaries(checkpoints_dir);
  std::string tmp = checkpoints_dir + "/" + kTmpPrefix + name;
  try {
    write_into(tmp, name, files, hook);
    if (fs::exists(final_dir)) fs::remove_all(final_dir);  // an invalid leftover
    if (::rename(tmp.c_str(), final_dir.c_str()) != 0) throw_os_error("cannot rename into", final_dir);
    fsync_directory(checkpoints_dir);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  return final_dir;
}

namespace {

// What is wrong with one manifest entry {"sha256": "...", "bytes": N}, or "".
std::string check_entry(const std::string& dir, const std::string& file, const nlohmann::json& entry) {
  if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..")
    return fmt::format("{}: lists \"{}\", which is not a file name inside the checkpoint", kManifest, file);
  if (!entry.is_object() || !entry.contains("bytes") || !entry["bytes"].is_number_unsigned() ||
      !entry.contains("sha256") || !entry["sha256"].is_string())
    return fmt::format("{}: the entry of {} is not {{\"sha256\": \"...\", \"bytes\": N}}", kManifest, file);
  std::string path = dir + "/" + file;
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec) return fmt::format("{}: missing", file);
  auto expected = entry["bytes"].get<uint64_t>();
  if (size != expected) return fmt::format("{}: {} bytes, the manifest says {}", file, size, expected);
  std::string actual = digest::sha256_file(path), want = entry["sha256"].get<std::string>();
  if (actual != want) return fmt::format("{}: sha256 {}, the manifest says {}", file, actual, want);
  return {};
}

// A file the manifest does not vouch for is as bad as a listed one that is
// missing: it would be loaded unchecked, or it is a leftover of something else.
std::string unlisted_file(const std::string& dir, const nlohmann::json& files) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name != kManifest && !files.contains(name))
      return fmt::format("{}: present but not listed in {}", name, kManifest);
  }
  if (ec) return fmt::format("cannot list the checkpoint's files: {}", ec.message());
  return {};
}

}  // namespace

std::string verify_checkpoint(const std::string& dir) {
  nlohmann::json manifest;
  try {
    manifest = read_json_document(dir + "/" + kManifest);
  } catch (const InputError& e) {
    return fmt::format("{}: unreadable ({})", kManifest, e.diagnostic().message);
  }
  if (!manifest.is_object() || !manifest.contains("files") || !manifest["files"].is_object())
    return fmt::format("{}: no \"files\" table", kManifest);
  const nlohmann::json& files = manifest["files"];
  if (files.empty()) return fmt::format("{}: lists no files, and a checkpoint holds at least its state", kManifest);
  for (const auto& [file, entry] : files.items())
    if (std::string problem = check_entry(dir, file, entry); !problem.empty()) return problem;
  return unlisted_file(dir, files);
}

std::vector<std::string> list_checkpoints(const std::string& checkpoints_dir) {
  std::vector<std::pair<long long, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(checkpoints_dir, ec))
    if (auto step = checkpoint_step(e.path().filename().string()); step && e.is_directory())
      found.emplace_back(*step, e.path().string());
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(f.second);
  return out;
}

namespace {

// Directories named like checkpoints whose step is no number a run reaches
// ("step-99999999999999999999"): skipped, and said so, rather than fatal.
void warn_unnumbered(const std::string& checkpoints_dir,
                     const std::function<void(const std::string&)>& warn) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(checkpoints_dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("step-", 0) == 0 && !checkpoint_step(name) && e.is_directory())
      warn(fmt::format("{} is not a checkpoint this runner writes (expected step-N with N in "
                       "[0, 9223372036854775807]); skipping it",
                       e.path().string()));
  }
}

}  // namespace

std::optional<std::string> newest_valid_checkpoint(
    const std::string& checkpoints_dir, const std::function<void(const std::string&)>& warn) {
  if (warn) warn_unnumbered(checkpoints_dir, warn);
  auto all = list_checkpoints(checkpoints_dir);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    std::string problem = verify_checkpoint(*it);
    if (problem.empty()) return *it;
    if (warn)
      warn(fmt::format("checkpoint {} fails verification ({}); skipping it and trying the "
                       "previous one",
                       *it, problem));
  }
  return std::nullopt;
}

std::vector<std::string> prune_checkpoints(const std::string& checkpoints_dir, long long keep_last,
                                           const std::string& best_dir, const std::string& just_written) {
  auto norm = [](const std::string& p) { return fs::path(p).lexically_normal().string(); };
  auto all = list_checkpoints(checkpoints_dir);
  std::set<std::string> keep;
  size_t first_kept = all.size() > static_cast<size_t>(keep_last) ? all.size() - keep_last : 0;
  for (size_t i = first_kept; i < all.size(); ++i) keep.insert(norm(all[i]));
  const bool written_is_newest = !just_written.empty() && !all.empty() && norm(all.back()) == norm(just_written);
  if (!just_written.empty()) keep.insert(norm(just_written));
  if (!written_is_newest)
    if (auto newest = newest_valid_checkpoint(checkpoints_dir, nullptr)) keep.insert(norm(*newest));
  if (!best_dir.empty()) keep.insert(norm(best_dir));
  std::vector<std::string> removed;
  for (const auto& dir : all) {
    if (keep.count(norm(dir))) continue;
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!ec) removed.push_back(dir);
  }
  return removed;
}

}  // namespace runner
