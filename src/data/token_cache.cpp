#include "data/token_cache.h"

#include "util/input_file.h"
#include "util/sha256.h"
#include "util/paths.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace runner {

namespace {

constexpr char kMagic[8] = {'R', 'N', 'R', 'T', 'O', 'K', 'S', '\0'};
// 2: float targets (regression, multi-label) after the example ids.
// 3: token classification's per-token labels after the targets.
constexpr uint32_t kVersion = 3;
constexpr size_t kDigestHex = 64;

// Little-endian-as-stored plain values; the cache is per machine, and the key
// includes the byte order through the header check below.
struct Header {
  char magic[8];
  uint32_t version;
  uint32_t endian_check;  // 0x01020304 as written
  char key[kDigestHex];
  uint64_t examples, tokens, report_bytes;
  uint8_t has_labels;
  uint8_t pad[7];
  uint64_t target_width;  // floats per example after the example ids
  uint64_t token_labels;  // 0, or one per token after the targets
  uint64_t truncated;     // sentences cut at max_length
};

template <class T>
void put(std::string& out, const std::vector<T>& v) {
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
bool take(std::string_view& in, std::vector<T>& v, uint64_t count) {
  if (in.size() / sizeof(T) < count) return false;
  v.resize(count);
  if (count > 0) std::memcpy(v.data(), in.data(), count * sizeof(T));  // an empty vector's data() may be null
  in.remove_prefix(count * sizeof(T));
  return true;
}

std::string cache_key(const Dataset& dataset, const std::string& split, const Tokenizer& tok,
                      const EncodeOptions& enc, const TokenCacheOptions& cache) {
  digest::Sha256 h;
  h.update("runner-token-cache-v1\n");
  h.update(digest::sha256_file(dataset.split_file(split))).update("\n");
  h.update(tok.fingerprint()).update("\n");
  h.update(std::to_string(enc.max_length) + "/" + std::to_string(static_cast<int>(enc.truncation)));
  h.update("\n").update(cache.dataset_key).update("\n").update(split);
  // A token classification's label list may come from the train file: the
  // ids of another split's cached labels depend on it.
  for (const std::string& name : dataset.info().label_names) h.update("\n").update(name);
  return h.hex_digest();
}

std::string default_warn_prefix() { return "warning: token cache: "; }

}  // namespace

void write_token_cache(const std::string& path, const std::string& key, const PreparedSplit& s) {
  const TokenizedSplit& t = s.tokens;
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.endian_check = 0x01020304;
  std::memcpy(h.key, key.data(), kDigestHex);
  h.examples = t.size();
  h.tokens = t.input_ids.size();
  h.report_bytes = s.skipped_report.size();
  h.has_labels = t.has_labels;
  h.target_width = static_cast<uint64_t>(t.target_width);
  h.token_labels = t.token_labels.size();
  h.truncated = static_cast<uint64_t>(t.truncated);
  std::string bytes(reinterpret_cast<const char*>(&h), sizeof h);
  put(bytes, t.offsets);
  put(bytes, t.input_ids);
  put(bytes, t.token_type_ids);
  put(bytes, t.labels);
  put(bytes, t.example_ids);
  put(bytes, t.targets);
  put(bytes, t.token_labels);
  bytes += s.skipped_report;
  bytes += digest::sha256_hex(bytes);
  fs::create_directories(fs::path(path).parent_path());
  // Written aside and renamed, so readers never see half a file.
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::ofstream(tmp, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  fs::rename(tmp, path);
}

bool read_token_cache(const std::string& path, const std::string& key, PreparedSplit& out,
                      std::string& why) {
  // A FIFO in the cache folder would block the open: it is not a cache file.
  if (!special_file_kind(path).empty()) return why = "the cache path is not a regular file", false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return why = "no cache file", false;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  if (bytes.size() < sizeof(Header) + kDigestHex) return why = "the file is truncated", false;
  std::string_view body(bytes.data(), bytes.size() - kDigestHex);
  if (digest::sha256_hex(body) != bytes.substr(bytes.size() - kDigestHex))
    return why = "the checksum does not match (truncated or corrupt file)", false;
  Header h;
  std::memcpy(&h, body.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.endian_check != 0x01020304)
    return why = "not a token cache file of this machine", false;
  if (h.version != kVersion)
    return why = "format version " + std::to_string(h.version) + ", expected " + std::to_string(kVersion), false;
  if (std::string_view(h.key, kDigestHex) != key) return why = "the key does not match", false;
  body.remove_prefix(sizeof h);
  TokenizedSplit& t = out.tokens;
  bool ok = take(body, t.offsets, h.examples + 1) && take(body, t.input_ids, h.tokens) &&
            take(body, t.token_type_ids, h.tokens) && take(body, t.labels, h.examples) &&
            take(body, t.example_ids, h.examples) &&
            h.target_width <= body.size() && take(body, t.targets, h.examples * h.target_width) &&
            (h.token_labels == 0 || h.token_labels == h.tokens) && take(body, t.token_labels, h.token_labels) &&
            body.size() == h.report_bytes;
  if (!ok) return why = "the sizes in the header do not match the file", false;
  out.skipped_report.assign(body.data(), body.size());
  t.has_labels = h.has_labels != 0;
  t.target_width = static_cast<int64_t>(h.target_width);
  t.truncated = static_cast<int64_t>(h.truncated);
  return true;
}

PreparedSplit prepare_split(const Dataset& dataset, const std::string& split,
                            const Tokenizer& tokenizer, const EncodeOptions& encode,
                            const TokenCacheOptions& cache) {
  auto warn = cache.warn ? cache.warn
                         : [](const std::string& m) { std::cerr << default_warn_prefix() << m << "\n"; };
  PreparedSplit out;
  std::string key;
  if (cache.enabled) {
    key = cache_key(dataset, split, tokenizer, encode, cache);
    std::string dir = cache.dir.empty() ? cache_root() : cache.dir;
    out.cache_file = (fs::path(dir) / "tokens" / (key + ".bin")).string();
    std::string why;
    if (read_token_cache(out.cache_file, key, out, why)) {
      out.from_cache = true;
      return out;
    }
    if (fs::exists(out.cache_file))
      warn(out.cache_file + " is unusable (" + why + "); re-tokenizing and rewriting it");
    out = PreparedSplit{};
    out.cache_file = (fs::path(dir) / "tokens" / (key + ".bin")).string();
  }
  SplitData data = dataset.load_split(split);
  out.tokens = tokenize_split(data, tokenizer, encode);
  out.skipped_report = describe_skipped(data);
  if (cache.enabled) {
    try {
      write_token_cache(out.cache_file, key, out);
    } catch (const std::exception& e) {
      warn("could not write " + out.cache_file + ": " + e.what() + " (continuing without it)");
    }
  }
  return out;
}

}  // namespace runner
