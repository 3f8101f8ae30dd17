// The token cache: hits, re-tokenizing after a data edit, rebuilding a damaged file.
#include "catch.h"

#include "data/token_cache.h"
#include "registry/registry.h"
#include "shared.h"
#include "tokenizer/wordpiece_loader.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace runner;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string data_dir, cache_dir;
  std::shared_ptr<const Dataset> dataset;
  std::shared_ptr<const WordPieceTokenizer> tokenizer;
  std::vector<std::string> warnings;

  explicit Fixture(const std::string& name) {
    data_dir = test::tmp_dir(name + "_data");
    cache_dir = test::tmp_dir(name + "_cache");
    fs::copy_file(test::shared_dir() + "/data/glue/MRPC/dev.tsv", data_dir + "/dev.tsv");
    dataset = registry().factory<DatasetFactory>(Kind::Dataset, "glue/mrpc")({{"dir", data_dir}});
    tokenizer = load_wordpiece({test::shared_dir() + "/models/bert-base-uncased"});
  }
  PreparedSplit prepare() {
    TokenCacheOptions o;
    o.dir = cache_dir;
    o.dataset_key = "glue/mrpc";
    o.warn = [this](const std::string& w) { warnings.push_back(w); };
    return prepare_split(*dataset, "dev", *tokenizer, EncodeOptions{}, o);
  }
};

}  // namespace

TEST_CASE("a second prepare reads the cache and gives the same tokens", "[data]") {
  Fixture f("cache_hit");
  PreparedSplit first = f.prepare();
  CHECK_FALSE(first.from_cache);
  CHECK(fs::exists(first.cache_file));
  auto start = std::chrono::steady_clock::now();
  PreparedSplit second = f.prepare();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(second.from_cache);
  CHECK(second.tokens.input_ids == first.tokens.input_ids);
  CHECK(second.tokens.token_type_ids == first.tokens.token_type_ids);
  CHECK(second.tokens.offsets == first.tokens.offsets);
  CHECK(second.tokens.labels == first.tokens.labels);
  CHECK(second.tokens.size() == 408);
  CHECK(seconds < 1.0);
  CHECK(f.warnings.empty());
}

TEST_CASE("editing one byte of the data file re-tokenizes", "[data]") {
  Fixture f("cache_edit");
  PreparedSplit first = f.prepare();
  {
    std::fstream io(f.data_dir + "/dev.tsv", std::ios::in | std::ios::out | std::ios::binary);
    std::stringstream ss;
    ss << io.rdbuf();
    std::string text = ss.str();
    size_t pos = text.find("He said");  // row 0 of dev.tsv
    REQUIRE(pos != std::string::npos);
    io.seekp(static_cast<std::streamoff>(pos));
    io.put('W');  // "He said" -> "We said"
  }
  PreparedSplit second = f.prepare();
  CHECK_FALSE(second.from_cache);
  CHECK(second.cache_file != first.cache_file);
  CHECK(second.tokens.input_ids != first.tokens.input_ids);
  CHECK(f.tokenizer->id_to_token(static_cast<int32_t>(second.tokens.input_ids[1])) == "we");
}

TEST_CASE("a truncated cache file is rebuilt with a warning", "[data]") {
  Fixture f("cache_truncated");
  PreparedSplit first = f.prepare();
  fs::resize_file(first.cache_file, fs::file_size(first.cache_file) / 2);
  PreparedSplit second = f.prepare();
  CHECK_FALSE(second.from_cache);
  REQUIRE(f.warnings.size() == 1);
  CHECK_THAT(f.warnings[0], Catch::Contains("unusable"));
  CHECK(second.tokens.input_ids == first.tokens.input_ids);
  PreparedSplit third = f.prepare();  // the rewritten file is good again
  CHECK(third.from_cache);
  CHECK(f.warnings.size() == 1);
}

TEST_CASE("a corrupted byte inside the cache fails the checksum", "[data]") {
  Fixture f("cache_corrupt");
  PreparedSplit first = f.prepare();
  {
    std::fstream io(first.cache_file, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(200);
    io.put('\x7f');
  }
  PreparedSplit out;
  std::string why;
  std::string key = fs::path(first.cache_file).stem().string();
  CHECK_FALSE(read_token_cache(first.cache_file, key, out, why));
  CHECK_THAT(why, Catch::Contains("checksum"));
}
