// CoNLL-2003 and SQuAD by name: each source checked against its pinned sha256,
// the folder built in the dataset cache under the publisher's file names, found
// there offline, and nothing kept when a source is not the publisher's.
#include "hub/named_datasets.h"
#include "hub_support.h"
#include "util/diagnostic.h"
#include "util/sha256.h"

#include "catch.h"
#include <zip.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace runner;
using namespace runner::test;

namespace {

std::string smoke(const std::string& rel) { return source_dir() + "/recipes/smoke/" + rel; }

// A zip holding train.txt, valid.txt and test.txt at its top, as conll2003.zip does.
std::string make_conll_zip(const std::string& dir) {
  std::string path = dir + "/conll2003.zip";
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z);
  for (const auto& [member, file] : {std::pair<const char*, const char*>{"train.txt", "ner/train.conll"},
                                     {"valid.txt", "ner/dev.conll"}, {"test.txt", "ner/dev.conll"}}) {
    zip_source_t* src = zip_source_file(z, smoke(file).c_str(), 0, -1);
    REQUIRE(zip_file_add(z, member, src, ZIP_FL_ENC_UTF_8) >= 0);
  }
  REQUIRE(zip_close(z) == 0);
  return path;
}

// The table's entry with its digests replaced by those of the test's own files:
// the download, check and build paths are the real ones.
hub::NamedDataset pinned_to(const hub::NamedDataset& real, const std::map<std::string, std::string>& bodies) {
  hub::NamedDataset d = real;
  for (auto& s : d.sources) s.digest = digest::sha256_hex(bodies.at(s.name));
  return d;
}

struct DatasetUrl {
  explicit DatasetUrl(const std::string& url) { setenv("RUNNER_DATASET_URL", url.c_str(), 1); }
  ~DatasetUrl() { unsetenv("RUNNER_DATASET_URL"); }
};

}  // namespace

TEST_CASE("hub: conll2003 is unpacked from its zip into the dataset cache, then found offline", "[hub]") {
  const std::string dir = tmp_dir("named-conll");
  const std::string zip = slurp(make_conll_zip(dir));
  FakeHub hub;
  hub.add_plain("mirror/conll2003.zip", zip);
  DatasetUrl url(hub.url() + "/mirror");
  const hub::NamedDataset conll = pinned_to(*hub::find_named_dataset("conll2003"), {{"conll2003.zip", zip}});
  auto s = settings_for(hub, dir + "/cache");
  auto r = hub::fetch_named_dataset(conll, dir + "/cache/datasets", s);
  CHECK(r.source == "download");
  CHECK(r.folder == dir + "/cache/datasets/conll2003");
  CHECK(slurp(r.folder + "/train.txt") == slurp(smoke("ner/train.conll")));
  CHECK(slurp(r.folder + "/valid.txt") == slurp(smoke("ner/dev.conll")));
  CHECK(slurp(r.folder + "/test.txt") == slurp(smoke("ner/dev.conll")));
  REQUIRE(r.files.size() == 3);
  CHECK(r.files[0].second == digest::sha256_file(smoke("ner/train.conll")));
  const int requests = hub.count();
  s.offline = true;
  CHECK(hub::fetch_named_dataset(conll, dir + "/cache/datasets", s).source == "dataset_cache");
  CHECK(hub.count() == requests);
}

TEST_CASE("hub: squad's two files are checked and kept under their own names", "[hub]") {
  const std::string dir = tmp_dir("named-squad");
  const std::string train = R"({"version": "v1.1", "data": []})", dev = R"({"version": "v1.1", "data": [ ]})";
  FakeHub hub;
  hub.add_plain("mirror/train-v1.1.json", train);
  hub.add_plain("mirror/dev-v1.1.json", dev);
  DatasetUrl url(hub.url() + "/mirror");
  const hub::NamedDataset squad =
      pinned_to(*hub::find_named_dataset("squad"), {{"train-v1.1.json", train}, {"dev-v1.1.json", dev}});
  auto r = hub::fetch_named_dataset(squad, dir + "/datasets", settings_for(hub, dir + "/hf"));
  CHECK(slurp(r.folder + "/train-v1.1.json") == train);
  CHECK(slurp(r.folder + "/dev-v1.1.json") == dev);
}

TEST_CASE("hub: a named dataset's source that is not the publisher's is refused and nothing is kept", "[hub]") {
  const std::string dir = tmp_dir("named-tampered");
  FakeHub hub;
  hub.add_plain("mirror/conll2003.zip", slurp(make_conll_zip(dir)));
  DatasetUrl url(hub.url() + "/mirror");
  const hub::NamedDataset* conll = hub::find_named_dataset("conll2003");
  REQUIRE(conll);
  try {
    hub::fetch_named_dataset(*conll, dir + "/datasets", settings_for(hub, dir + "/hf"));
    FAIL("an archive with another sha256 was accepted");
  } catch (const InputError& e) {
    INFO(e.diagnostic().format());
    CHECK_THAT(e.diagnostic().format(), Catch::Contains("conll2003.zip") && Catch::Contains(conll->sources[0].digest) &&
                                            Catch::Contains("RUNNER_DATASET_URL"));
  }
  // Only the build lock is left beside where the folder would be: no part-built folder.
  for (const auto& e : fs::directory_iterator(dir + "/datasets")) CHECK(e.path().filename() == ".conll2003.lock");
}

TEST_CASE("hub: offline, a named dataset missing from the cache names `runner fetch` and the cache", "[hub]") {
  const std::string dir = tmp_dir("named-offline");
  FakeHub hub;
  auto s = settings_for(hub, dir + "/hf");
  s.offline = true;
  for (const char* name : {"conll2003", "squad", "squad_v2"}) {
    INFO(name);
    try {
      hub::fetch_named_dataset(*hub::find_named_dataset(name), dir + "/datasets", s);
      FAIL("an uncached dataset was found offline");
    } catch (const InputError& e) {
      CHECK_THAT(e.diagnostic().format(), Catch::Contains(std::string("runner fetch ") + name) &&
                                              Catch::Contains(dir + "/datasets/" + name));
    }
  }
  CHECK(hub.count() == 0);
}

TEST_CASE("hub: every named dataset pins a sha256 for each source and names its split files", "[hub]") {
  CHECK(hub::named_dataset_names() == "conll2003, squad, squad_v2");
  for (const auto& d : hub::named_datasets()) {
    INFO(d.name);
    CHECK_FALSE(d.sources.empty());
    for (const auto& s : d.sources) {
      CHECK(s.algorithm == "sha256");
      CHECK(s.digest.size() == 64);
      CHECK(s.default_url.rfind("https://", 0) == 0);
    }
    CHECK(d.files.size() >= 2);
  }
  CHECK(hub::find_named_dataset("squad_v3") == nullptr);
}
