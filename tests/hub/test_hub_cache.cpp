// Repository ids, and the Hugging Face cache read as transformers leaves it:
// a snapshot laid out by hand is used with no request, offline mode never
// asks the server, and files known to be missing are remembered.
#include "hub/hf_cache.h"
#include "hub/repo_resolution.h"
#include "hub_support.h"
#include "util/diagnostic.h"

#include "catch.h"

#include <chrono>
#include <filesystem>

namespace fs = std::filesystem;
using namespace runner;
using namespace runner::test;

namespace {

// What transformers leaves after from_pretrained("org/tiny-bert"): blobs named by
// their etags, relative links from the snapshot, the ref. Written without the runner's code.
void lay_out_snapshot_by_hand(const fs::path& cache) {
  fs::path repo = cache / "models--org--tiny-bert";
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots" / kTinyCommit);
  std::ofstream(repo / "refs/main", std::ios::binary) << kTinyCommit;
  const std::string config_etag = "4f0b8a1e1cbd8a9d2c0f6b3bb1d97e5f4d4d2e11";
  fs::copy_file(shared_dir() + "/golden/tiny_bert/config.json", repo / "blobs" / config_etag);
  fs::copy_file(shared_dir() + "/golden/tiny_bert/model.safetensors", repo / "blobs" / kTinySafetensorsSha);
  fs::create_symlink("../../blobs/" + config_etag, repo / "snapshots" / kTinyCommit / "config.json");
  fs::create_symlink("../../blobs/" + kTinySafetensorsSha, repo / "snapshots" / kTinyCommit / "model.safetensors");
}

}  // namespace

TEST_CASE("hub: repository ids parse as the Hub names them", "[hub]") {
  auto plain = hub::parse_repo_id("bert-base-uncased");
  REQUIRE(plain);
  CHECK(plain->name == "bert-base-uncased");
  CHECK(plain->revision == "main");
  CHECK(plain->cache_folder() == "models--bert-base-uncased");
  auto pinned = hub::parse_repo_id("google/electra-small-discriminator@v1.0");
  REQUIRE(pinned);
  CHECK(pinned->name == "google/electra-small-discriminator");
  CHECK(pinned->revision == "v1.0");
  CHECK(pinned->cache_folder() == "models--google--electra-small-discriminator");
  for (const char* not_an_id : {"", "./bert", "../bert", "/abs/bert", "~/bert", "a/b/c", "a--b", "org/..x", "x@", "-x"})
    CHECK_FALSE(hub::parse_repo_id(not_an_id));
}

TEST_CASE("hub: a snapshot laid out by hand as transformers does is used without a request", "[hub]") {
  FakeHub hub;  // empty: any request would fail, and is counted
  std::string cache = tmp_dir("hub-hand-layout");
  lay_out_snapshot_by_hand(cache);
  auto r = hub::resolve_repo(*hub::parse_repo_id("org/tiny-bert"), hub::FileSet::Model, settings_for(hub, cache));
  CHECK(r.source == "hf_cache");
  CHECK(r.commit == kTinyCommit);
  CHECK(r.folder == cache + "/models--org--tiny-bert/snapshots/" + kTinyCommit);
  REQUIRE(r.files.size() == 2);
  CHECK(r.files[1].second == kTinySafetensorsSha);
  CHECK(hub.count() == 0);
  // Pinned to the commit, the same snapshot is found without the ref.
  auto pinned = hub::resolve_repo(*hub::parse_repo_id("org/tiny-bert@" + kTinyCommit), hub::FileSet::Model,
                                  settings_for(hub, cache));
  CHECK(pinned.folder == r.folder);
  CHECK(hub.count() == 0);
}

TEST_CASE("hub: offline with an empty cache fails at once, naming the repository and the file", "[hub]") {
  FakeHub hub;
  hub.add_repo("org/tiny-bert", kTinyCommit, tiny_bert_files());
  auto s = settings_for(hub, tmp_dir("hub-offline"));
  s.offline = true;
  auto start = std::chrono::steady_clock::now();
  try {
    hub::resolve_repo(*hub::parse_repo_id("org/tiny-bert"), hub::FileSet::Model, s);
    FAIL("offline resolution of an empty cache succeeded");
  } catch (const InputError& e) {
    CHECK_THAT(e.diagnostic().format(), Catch::Contains("offline") && Catch::Contains("org/tiny-bert has no config.json") &&
                                            Catch::Contains("runner fetch org/tiny-bert"));
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  CHECK(hub.count() == 0);
}

TEST_CASE("hub: a file the repository lacks is recorded in .no_exist and not asked for again", "[hub]") {
  FakeHub hub;
  auto files = tokenizer_files();
  files.erase("tokenizer_config.json");
  hub.add_repo("bert-base-uncased", kTokenizerCommit, files);
  std::string cache = tmp_dir("hub-no-exist");
  auto s = settings_for(hub, cache);
  auto first = hub::resolve_repo(*hub::parse_repo_id("bert-base-uncased"), hub::FileSet::Tokenizer, s);
  CHECK(fs::exists(cache + "/models--bert-base-uncased/.no_exist/" + kTokenizerCommit + "/tokenizer_config.json"));
  REQUIRE(first.files.size() == 1);  // vocab.txt is enough: tokenizer.json is not fetched
  CHECK(first.files[0].first == "vocab.txt");
  // sha256 of vocab.txt from ../shared/models/README.md
  CHECK(first.files[0].second == "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3");
  int requests = hub.count();
  s.offline = true;
  auto again = hub::resolve_repo(*hub::parse_repo_id("bert-base-uncased"), hub::FileSet::Tokenizer, s);
  CHECK(again.folder == first.folder);
  CHECK(again.source == "hf_cache");
  CHECK(hub.count() == requests);
}
