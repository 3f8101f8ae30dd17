// Hugging Face caches laid out by hand and broken as a
// killed download, a hand edit or a hostile link leaves them. Offline, `runner
// fetch` must fail (exit 2) on any cache the run would reject, naming what is
// broken and how to refetch, and a snapshot link that leads out of the cache is
// never used as the repository's file.
#include "hub_support.h"
#include "util/diagnostic.h"

#include "catch.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace runner;
using namespace runner::test;

namespace {

const std::string kConfigEtag = "4f0b8a1e1cbd8a9d2c0f6b3bb1d97e5f4d4d2e11";

// org/tiny-bert as transformers leaves it: the golden tiny BERT and the
// bert-base-uncased tokenizer files, blobs linked from the snapshot, refs/main.
fs::path lay_out_repo(const fs::path& cache) {
  fs::path repo = cache / "models--org--tiny-bert";
  fs::path snapshot = repo / "snapshots" / kTinyCommit;
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "refs");
  fs::create_directories(snapshot);
  std::ofstream(repo / "refs/main", std::ios::binary) << kTinyCommit;
  auto add = [&](const std::string& from, const std::string& file, const std::string& etag) {
    fs::copy_file(from, repo / "blobs" / etag);
    fs::create_symlink("../../blobs/" + etag, snapshot / file);
  };
  add(shared_dir() + "/golden/tiny_bert/config.json", "config.json", kConfigEtag);
  add(shared_dir() + "/golden/tiny_bert/model.safetensors", "model.safetensors", kTinySafetensorsSha);
  add(shared_dir() + "/models/bert-base-uncased/tokenizer_config.json", "tokenizer_config.json",
      "5555555555555555555555555555555555555555");
  add(shared_dir() + "/models/bert-base-uncased/vocab.txt", "vocab.txt", "6666666666666666666666666666666666666666");
  return repo;
}

std::string offline_env(const std::string& dir) {
  fs::create_directories(dir + "/models");
  return "env -u HF_HOME -u RUNNER_OFFLINE HF_HUB_OFFLINE=1 RUNNER_MODELS=" + dir + "/models HF_HUB_CACHE=" + dir +
         "/hf RUNNER_CACHE=" + dir + "/cache ";
}

CommandResult fetch(const std::string& dir) {
  return run_command(offline_env(dir) + runner_exe() + " fetch org/tiny-bert");
}

CommandResult validate(const std::string& dir) {
  return run_command(offline_env(dir) + runner_exe() + " validate " + source_dir() +
                     "/recipes/smoke/mrpc_smoke.toml --set model.pretrained=org/tiny-bert");
}

void check_broken(const CommandResult& r, const std::string& what) {
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("cache's copy of org/tiny-bert is broken") && Catch::Contains(what) &&
                        Catch::Contains("runner fetch org/tiny-bert"));
  CHECK(r.out.find("syntax error") == std::string::npos);  // no raw library message
  CHECK(r.out.find("filesystem error") == std::string::npos);
}

}  // namespace

TEST_CASE("hub: offline fetch of a whole hand-made snapshot exits 0 and lists model and tokenizer", "[hub]") {
  std::string dir = tmp_dir("hub-broken-control");
  lay_out_repo(dir + "/hf");
  auto r = fetch(dir);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("model.safetensors  sha256 " + kTinySafetensorsSha) &&
                        Catch::Contains("vocab.txt  sha256"));
}

TEST_CASE("hub: offline fetch of a snapshot whose weights link to a missing blob exits 2 naming it", "[hub]") {
  // Before: fetch printed the tokenizer alone and exited 0; validate then said "has no model.safetensors".
  std::string dir = tmp_dir("hub-broken-blob");
  fs::path repo = lay_out_repo(dir + "/hf");
  fs::path blob = repo / "blobs" / kTinySafetensorsSha;
  fs::remove(blob);
  check_broken(fetch(dir), "model.safetensors is a link to " + blob.string() + ", which is missing");
  check_broken(validate(dir), "which is missing");
  // A download that did not finish is said to be one.
  std::ofstream(blob.string() + ".incomplete") << "partial";
  check_broken(fetch(dir), blob.string() + ".incomplete is a download that did not finish");
}

TEST_CASE("hub: a snapshot link that resolves outside the cache is never read as the repository's file", "[hub]") {
  // Before: fetch listed /etc/passwd's sha256 as config.json and validate printed nlohmann's parse error.
  std::string dir = tmp_dir("hub-broken-escape");
  fs::path repo = lay_out_repo(dir + "/hf");
  fs::path config = repo / "snapshots" / kTinyCommit / "config.json";
  fs::remove(config);
  fs::create_symlink("/etc/passwd", config);
  auto r = fetch(dir);
  check_broken(r, "resolves to /etc/passwd, outside the cache folder");
  CHECK(r.out.find("config.json  sha256") == std::string::npos);
  check_broken(validate(dir), "outside the cache folder");
}

TEST_CASE("hub: offline a broken refs/main is named as the broken ref with how to refetch", "[hub]") {
  // Before: each gave "has no config.json in the Hugging Face cache".
  std::string dir = tmp_dir("hub-broken-ref");
  fs::path repo = lay_out_repo(dir + "/hf");
  fs::path ref = repo / "refs" / "main";
  std::ofstream(ref, std::ios::trunc) << "2222222222222222222222222222222222222222";
  check_broken(fetch(dir), "names commit 2222222222222222222222222222222222222222, but");
  std::ofstream(ref, std::ios::trunc) << "";
  check_broken(fetch(dir), ref.string() + " is empty");
  fs::remove(ref);
  fs::create_directories(ref);
  check_broken(fetch(dir), ref.string() + " is not a file holding a commit");
  check_broken(validate(dir), "refs/main is not a file holding a commit");
}
