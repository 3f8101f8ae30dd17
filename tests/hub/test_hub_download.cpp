// Downloads from the fake Hub into an empty cache: the layout huggingface_hub
// writes, and each injected fault (dropped connection, corrupted body, 401,
// 404, 500, a server that stalls).
#include "hub/http_errors.h"
#include "hub/hub_download.h"
#include "hub/repo_resolution.h"
#include "hub_support.h"
#include "util/diagnostic.h"
#include "util/sha256.h"

#include "catch.h"

#include <chrono>
#include <filesystem>

namespace fs = std::filesystem;
using namespace runner;
using namespace runner::test;

namespace {

hub::Resolution resolve_tiny(const hub::HubSettings& s, const std::string& name = "org/tiny-bert") {
  return hub::resolve_repo(*hub::parse_repo_id(name), hub::FileSet::Model, s);
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.diagnostic().format();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("hub: a download writes huggingface_hub's cache layout", "[hub]") {
  FakeHub hub;
  hub.add_repo("org/tiny-bert", kTinyCommit, tiny_bert_files());
  std::string cache = tmp_dir("hub-layout");
  auto r = resolve_tiny(settings_for(hub, cache));
  const fs::path repo = fs::path(cache) / "models--org--tiny-bert";
  CHECK(r.source == "download");
  CHECK(r.commit == kTinyCommit);
  CHECK(r.folder == (repo / "snapshots" / kTinyCommit).string());
  CHECK(slurp((repo / "refs/main").string()) == kTinyCommit);  // the commit, no newline
  // The weights: a relative link to the blob named by the LFS sha256.
  fs::path weights = repo / "snapshots" / kTinyCommit / "model.safetensors";
  REQUIRE(fs::is_symlink(weights));
  CHECK(fs::read_symlink(weights).string() == "../../blobs/" + kTinySafetensorsSha);
  CHECK(slurp(weights.string()) == tiny_bert_files()["model.safetensors"]);
  // config.json is a plain git file: its blob is named by the ETag the server sent.
  fs::path config = repo / "snapshots" / kTinyCommit / "config.json";
  REQUIRE(fs::is_symlink(config));
  CHECK(fs::read_symlink(config).string().rfind("../../blobs/", 0) == 0);
  CHECK(fs::read_symlink(config).filename().string().size() == 40);
  CHECK(fs::exists(fs::path(cache) / ".locks" / "models--org--tiny-bert" / (kTinySafetensorsSha + ".lock")));
  CHECK_FALSE(any_file_named(cache, ".incomplete"));
  REQUIRE(r.files.size() == 2);
  CHECK(r.files[1] == std::make_pair(std::string("model.safetensors"), kTinySafetensorsSha));
}

TEST_CASE("hub: a connection dropped mid-file is resumed with a Range request", "[hub]") {
  FakeHub hub;
  hub.add_repo("org/tiny-bert", kTinyCommit, tiny_bert_files());
  hub.drop_after("model.safetensors", 1000000, 1);
  std::string cache = tmp_dir("hub-drop");
  auto r = resolve_tiny(settings_for(hub, cache));
  CHECK(hub.count("range=bytes=1000000-") == 1);
  CHECK(hub.body_downloads("model.safetensors") == 2);
  CHECK(r.files[1].second == kTinySafetensorsSha);
  CHECK(digest::sha256_file(r.folder + "/model.safetensors") == kTinySafetensorsSha);
}

TEST_CASE("hub: a corrupted body is refused and nothing enters the cache", "[hub]") {
  FakeHub hub;
  hub.add_repo("org/tiny-bert", kTinyCommit, tiny_bert_files());
  hub.corrupt("model.safetensors");
  std::string cache = tmp_dir("hub-corrupt");
  std::string err = error_of([&] { resolve_tiny(settings_for(hub, cache)); });
  CHECK_THAT(err, Catch::Contains("org/tiny-bert: model.safetensors") && Catch::Contains("damaged") &&
                      Catch::Contains(kTinySafetensorsSha));
  CHECK_FALSE(any_file_named(cache + "/models--org--tiny-bert", kTinySafetensorsSha));  // no blob, no .incomplete
  CHECK_FALSE(fs::exists(fs::path(cache) / "models--org--tiny-bert/snapshots" / kTinyCommit / "model.safetensors"));
}

TEST_CASE("hub: 401 says how to log in, and HF_TOKEN is sent as a bearer token", "[hub]") {
  FakeHub hub;
  hub.add_repo("org/tiny-bert", kTinyCommit, tiny_bert_files());
  hub.require_token("hf_secret");
  auto s = settings_for(hub, tmp_dir("hub-401"));
  std::string err = error_of([&] { resolve_tiny(s); });
  CHECK_THAT(err, Catch::Contains("401") && Catch::Contains("org/tiny-bert: config.json") &&
                      Catch::Contains("HF_TOKEN") && Catch::Contains("huggingface-cli login"));
  s.token = "hf_secret";
  CHECK(resolve_tiny(s).commit == kTinyCommit);
  // The token goes to the Hub only, never to the storage host the LFS redirect names.
  CHECK(hub.body_downloads("model.safetensors") == 1);
}

TEST_CASE("hub: 404 names the repository or the file", "[hub]") {
  FakeHub hub;
  hub.add_repo("org/tokenizer-only", kTinyCommit, {{"config.json", "{}"}, {"vocab.txt", "[UNK]\n"}});
  auto s = settings_for(hub, tmp_dir("hub-404"));
  CHECK_THAT(error_of([&] { resolve_tiny(s, "org/no-such-model"); }),
             Catch::Contains("org/no-such-model") && Catch::Contains("404: no such repository"));
  CHECK_THAT(error_of([&] { resolve_tiny(s, "org/tokenizer-only"); }),
             Catch::Contains("org/tokenizer-only has no model.safetensors, model.safetensors.index.json, "
                             "pytorch_model.bin or pytorch_model.bin.index.json"));
  CHECK_THAT(error_of([&] { resolve_tiny(s, "org/tokenizer-only@v9"); }), Catch::Contains("no such revision"));
}

TEST_CASE("hub: a 500 answer is retried, then the download succeeds", "[hub]") {
  FakeHub hub;
  hub.add_repo("org/tiny-bert", kTinyCommit, tiny_bert_files());
  hub.fail_with("config.json", 500, 1);
  hub.fail_with("model.safetensors", 503, 2);
  auto r = resolve_tiny(settings_for(hub, tmp_dir("hub-500")));
  CHECK(r.files.size() == 2);
  CHECK(hub.count("HEAD /org/tiny-bert/resolve/main/config.json") == 2);
  CHECK(hub.count("/model.safetensors") >= 4);  // two failures, the HEAD, the GET
  auto s = settings_for(hub, tmp_dir("hub-500-always"));
  hub.fail_with("config.json", 502, 100);
  CHECK_THAT(error_of([&] { resolve_tiny(s); }), Catch::Contains("502 after 3 tries"));
}

TEST_CASE("hub: a server that stalls is abandoned after the timeout with a clear error", "[hub]") {
  FakeHub hub;
  hub.add_repo("org/tiny-bert", kTinyCommit, tiny_bert_files());
  hub.stall("config.json", 20000);
  auto s = settings_for(hub, tmp_dir("hub-stall"));
  s.timeout_s = 1;
  s.max_tries = 2;
  auto start = std::chrono::steady_clock::now();
  std::string err = error_of([&] { resolve_tiny(s); });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK_THAT(err, Catch::Contains("org/tiny-bert: config.json: no answer within 1 s (2 tries)"));
  CHECK(seconds < 6.0);
}

TEST_CASE("a host name that does not resolve is not asked again; other transport faults are", "[hub]") {
  hub::HttpResponse unresolved;
  unresolved.transport_error = "the host name could not be resolved";
  unresolved.host_unknown = true;
  CHECK_FALSE(hub::is_retriable(unresolved));
  hub::HttpResponse dropped;
  dropped.transport_error = "the connection was reset";
  CHECK(hub::is_retriable(dropped));
  hub::HttpResponse busy;
  busy.status = 503;
  CHECK(hub::is_retriable(busy));
}
