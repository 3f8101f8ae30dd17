// The token cache: a split is tokenized once per (data file content, tokenizer
// fingerprint, encoding settings, dataset options) and stored as a compact
// binary file with a versioned header and a SHA-256 checksum. A stale key
// simply names another file; a damaged file is detected, reported and rebuilt.
#pragma once

#include "data/dataset.h"
#include "data/tokenized_split.h"

#include <functional>
#include <string>

namespace runner {

struct TokenCacheOptions {
  std::string dir;           // empty: data.cache_dir, else $RUNNER_CACHE or ~/.cache/runner
  bool enabled = true;
  std::string dataset_key;   // the dataset's name and options, so a new mapping re-tokenizes
  std::function<void(const std::string&)> warn;  // defaults to stderr
};

struct PreparedSplit {
  TokenizedSplit tokens;
  std::string skipped_report;  // describe_skipped() of the split when it was read
  bool from_cache = false;
  std::string cache_file;      // empty when the cache is disabled
};

// Loads `split` from the cache or reads, tokenizes and stores it.
PreparedSplit prepare_split(const Dataset& dataset, const std::string& split,
                            const Tokenizer& tokenizer, const EncodeOptions& encode,
                            const TokenCacheOptions& cache);

// File format, exposed for tests.
void write_token_cache(const std::string& path, const std::string& key, const PreparedSplit& s);
// Returns false (with `why`) when the file is missing, truncated, of another
// version or key, or fails its checksum.
bool read_token_cache(const std::string& path, const std::string& key, PreparedSplit& out,
                      std::string& why);

}  // namespace runner
