// The safetensors reader against the golden files and against hostile files,
// and the writer against the reader.
#include "catch.h"

#include "model/safetensors.h"
#include "shared.h"
#include "util/diagnostic.h"

#include <cstring>
#include <fstream>

using runner::SafetensorsFile;

namespace {

// A file with an explicit header text and data bytes, as a hostile writer would make it.
std::string write_raw(const std::string& name, const std::string& header, const std::string& data,
                      uint64_t claimed_length = UINT64_MAX) {
  std::string path = runner::test::tmp_dir("safetensors-" + name) + "/t.safetensors";
  uint64_t n = claimed_length == UINT64_MAX ? header.size() : claimed_length;
  std::ofstream out(path, std::ios::binary);
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << header << data;
  return path;
}

// Opening `path` must throw InputError whose message names the file and contains `what`.
void require_clean_error(const std::string& path, const std::string& what) {
  try {
    SafetensorsFile f(path);
    FAIL("no error for " << what);
  } catch (const runner::InputError& e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find(path) != std::string::npos);
    CHECK(msg.find(what) != std::string::npos);
  }
}

const std::string kTwoFloats = std::string(8, '\0');

}  // namespace

TEST_CASE("safetensors: golden tiny_bert file has the 41 parameters with exact shapes", "[model]") {
  SafetensorsFile f(runner::test::shared_dir() + "/golden/tiny_bert/model.safetensors");
  REQUIRE(f.entries().size() == 41);
  const auto* word = f.find("bert.embeddings.word_embeddings.weight");
  REQUIRE(word != nullptr);
  CHECK(word->dtype == "F32");
  CHECK(word->shape == std::vector<int64_t>{30522, 64});
  // Row 0 is the [PAD] row, zeroed by padding_idx (golden README).
  float row0[64];
  std::memcpy(row0, f.data(*word), sizeof row0);
  for (float v : row0) CHECK(v == 0.0f);
  CHECK(f.metadata().at("format") == "pt");
}

TEST_CASE("safetensors: writer output reads back with the same bytes", "[model]") {
  std::string dir = runner::test::tmp_dir("safetensors-write");
  std::vector<float> a = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f};
  std::vector<int64_t> ids = {101, 102, -1};
  std::vector<uint16_t> half = {0x3c00, 0xc000};  // F16 1.0, -2.0
  runner::write_safetensors(dir + "/w.safetensors",
                            {{"b.weight", "F32", {2, 3}, a.data()},
                             {"a.ids", "I64", {3}, ids.data()},
                             {"h", "F16", {2}, half.data()}});
  SafetensorsFile f(dir + "/w.safetensors");
  REQUIRE(f.entries().size() == 3);
  const auto* w = f.find("b.weight");
  REQUIRE(w);
  CHECK(w->shape == std::vector<int64_t>{2, 3});
  CHECK(std::memcmp(f.data(*w), a.data(), 24) == 0);
  CHECK(std::memcmp(f.data(*f.find("a.ids")), ids.data(), 24) == 0);
  CHECK(std::memcmp(f.data(*f.find("h")), half.data(), 4) == 0);
  // The Rust writer's order: 8-byte dtypes first, then 4, then 2.
  CHECK(f.find("a.ids")->begin == 0);
  CHECK(f.find("b.weight")->begin == 24);
  CHECK(f.find("h")->begin == 48);
}

TEST_CASE("safetensors hostile: truncated data", "[model]") {
  std::string header = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
  require_clean_error(write_raw("truncated", header, std::string(10, '\0')), "truncated");
}

TEST_CASE("safetensors hostile: header length past the end of the file", "[model]") {
  std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  require_clean_error(write_raw("header-past-end", header, kTwoFloats, 5000), "only");
}

TEST_CASE("safetensors hostile: overlapping offsets", "[model]") {
  std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  require_clean_error(write_raw("overlap", header, std::string(12, '\0')), "overlap");
}

TEST_CASE("safetensors hostile: byte length not matching the shape", "[model]") {
  std::string header = R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})";
  require_clean_error(write_raw("bad-length", header, kTwoFloats), "needs 12 bytes");
}

TEST_CASE("safetensors hostile: unknown dtype", "[model]") {
  std::string header = R"({"w":{"dtype":"F31","shape":[2],"data_offsets":[0,8]}})";
  require_clean_error(write_raw("dtype", header, kTwoFloats), "unknown dtype \"F31\"");
}

TEST_CASE("safetensors hostile: header claiming 100 GB", "[model]") {
  std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  require_clean_error(write_raw("huge", header, kTwoFloats, 100'000'000'000ULL), "the limit is");
}

TEST_CASE("safetensors hostile: non-JSON header", "[model]") {
  require_clean_error(write_raw("not-json", "this is not json at all!", kTwoFloats), "not valid UTF-8 JSON");
  require_clean_error(write_raw("bad-utf8", "{\"w\xff\xfe\":1}", ""), "not valid UTF-8 JSON");
}

TEST_CASE("safetensors hostile: a hole, a short file and a tensor name in the message", "[model]") {
  std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
  require_clean_error(write_raw("hole", header, kTwoFloats), "tensor 'a'");
  std::string path = runner::test::tmp_dir("safetensors-short") + "/t.safetensors";
  std::ofstream(path) << "abc";
  require_clean_error(path, "fewer than the 8-byte header length");
}
