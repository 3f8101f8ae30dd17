// What the hub tests share: files read from ../shared, a fake Hub filled with
// the golden tiny BERT and the bert-base-uncased tokenizer, and settings that
// point a downloader at it with a fresh cache.
#pragma once

#include "fake_hub.h"
#include "hub/hub_settings.h"
#include "shared.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace runner::test {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Made-up commits (40 hex digits), as the Hub's are.
inline const std::string kTinyCommit = "1111111111111111111111111111111111111111";
inline const std::string kTokenizerCommit = "86b5e0934494bd15c9632b12f734a8a67f723594";
// sha256 of golden/tiny_bert/model.safetensors, from ../shared/golden/README.md.
inline const std::string kTinySafetensorsSha = "96e51a2f150167251dae19fe7d20ee22ac8feaad024b6389e9b5e53426c3c978";

inline std::map<std::string, std::string> tiny_bert_files() {
  std::string dir = shared_dir() + "/golden/tiny_bert/";
  return {{"config.json", slurp(dir + "config.json")}, {"model.safetensors", slurp(dir + "model.safetensors")}};
}

inline std::map<std::string, std::string> tokenizer_files() {
  std::string dir = shared_dir() + "/models/bert-base-uncased/";
  std::map<std::string, std::string> out;
  for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt"}) out[f] = slurp(dir + f);
  return out;
}

// The MRPC source files, served where RUNNER_GLUE_URL=<hub>/glue finds them.
inline void add_glue_sources(FakeHub& hub) {
  std::string dir = shared_dir() + "/data/glue/MRPC/source/";
  for (const char* f : {"msr_paraphrase_train.txt", "msr_paraphrase_test.txt", "mrpc_dev_ids.tsv"})
    hub.add_plain(std::string("glue/") + f, slurp(dir + f));
}

inline hub::HubSettings settings_for(const FakeHub& hub, const std::string& cache_dir) {
  hub::HubSettings s;
  s.endpoint = hub.url();
  s.cache_dir = cache_dir;
  s.timeout_s = 2;
  s.max_tries = 3;
  s.first_backoff_ms = 50;
  return s;
}

inline bool any_file_named(const std::string& dir, const std::string& needle) {
  if (!std::filesystem::exists(dir)) return false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace runner::test
