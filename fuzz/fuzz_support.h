// What every fuzz target shares: a private scratch folder for the files a
// parser must read from disk, and the line between the project's own
// "bad input" errors (expected, fine) and everything else (a finding).
#pragma once

#include "util/diagnostic.h"

#include <string>
#include <string_view>
#include <vector>

namespace runner::fuzz {

// A folder private to this process, created on first use and removed at exit.
const std::string& scratch_dir();

// Writes `bytes` to scratch_dir()/`name` (replacing it) and returns the path.
std::string write_scratch(const std::string& name, std::string_view bytes);

// Runs `body`. InputError is how the project refuses bad files, so it returns
// normally; any other exception leaves and is a finding (libFuzzer reports the
// uncaught exception as a crash, the regression test as a failure).
template <class Body>
void refusing_is_fine(Body&& body) {
  try {
    body();
  } catch (const InputError&) {
  }
}

// `runner validate PATH --set ...` without the path checks: parse, extends,
// interpolation, plugins, overrides, every option, the schema and the
// cross-field rules. The fuzzer's data folders never exist, and checking them
// is a stat, so check_paths is off.
void validate_recipe(const std::string& path, const std::vector<std::string>& overrides = {});

// Loads a wordpiece tokenizer from `path` ("vocab_txt" or "tokenizer_json")
// and encodes one sentence pair with it, so the trie built from the file is walked.
void load_and_encode(const std::string& path, const std::string& format);

// Reads a weight file through read_weights and every tensor to its last
// element. Defined in safetensors.cpp, the one target that includes LibTorch.
void read_every_weight(const std::string& path);

}  // namespace runner::fuzz
