// What TensorBoard reads of the tensorboard logger's scalars, decoded here by
// hand from the protobuf wire format after TensorBoard's own definitions
// (tensorflow/core/util/event.proto: Event.summary = 5; summary.proto:
// Summary.value = 1, Summary.Value.tag = 1, and simple_value = 2 inside the
// oneof `value`, a float). A oneof member is on the wire whenever it is set, so
// every scalar, 0.0 and -0.0 included, must be there with its exact bits.
#include "catch.h"

#include "shared.h"

#include "run/tensorboard_logger.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace fs = std::filesystem;

namespace {

// A protobuf message read field by field (varint, 64-bit, length-delimited, 32-bit).
struct WireReader {
  const std::string& bytes;
  size_t at = 0;

  bool done() const { return at >= bytes.size(); }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; at < bytes.size(); shift += 7) {
      const auto b = static_cast<unsigned char>(bytes[at++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    FAIL("a varint runs past the message's end");
    return v;
  }
  std::string take(size_t n) {
    REQUIRE(at + n <= bytes.size());
    std::string out = bytes.substr(at, n);
    at += n;
    return out;
  }
  // Each field as (number, wire type, raw payload).
  struct Field {
    uint64_t number;
    int type;
    std::string payload;
  };
  Field next() {
    const uint64_t key = varint();
    Field f{key >> 3, static_cast<int>(key & 7), {}};
    if (f.type == 0) f.payload = std::to_string(varint());
    else if (f.type == 1) f.payload = take(8);
    else if (f.type == 2) f.payload = take(varint());
    else if (f.type == 5) f.payload = take(4);
    else FAIL("wire type " << f.type << " is none that Event uses");
    return f;
  }
};

// tag -> the float's bits, from every Summary.Value with a simple_value.
std::map<std::string, uint32_t> scalars_of(const std::string& event) {
  std::map<std::string, uint32_t> out;
  for (WireReader e{event}; !e.done();) {
    WireReader::Field f = e.next();
    if (f.number != 5 || f.type != 2) continue;  // Event.summary
    for (WireReader s{f.payload}; !s.done();) {
      WireReader::Field value = s.next();
      if (value.number != 1 || value.type != 2) continue;  // Summary.value
      std::string tag;
      std::optional<uint32_t> bits;
      for (WireReader v{value.payload}; !v.done();) {
        WireReader::Field g = v.next();
        if (g.number == 1 && g.type == 2) tag = g.payload;
        if (g.number == 2 && g.type == 5) {  // simple_value, little-endian IEEE 754 single
          uint32_t b = 0;
          for (int i = 3; i >= 0; --i) b = b << 8 | static_cast<unsigned char>(g.payload[i]);
          bits = b;
        }
      }
      if (bits) out[tag] = *bits;
    }
  }
  return out;
}

// The records of an events file: each is length (8), its CRC (4), data, the data's CRC (4).
std::vector<std::string> records_of(const std::string& file) {
  std::vector<std::string> out;
  for (size_t at = 0; at + 12 <= file.size();) {
    uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = length << 8 | static_cast<unsigned char>(file[at + i]);
    REQUIRE(at + 12 + length + 4 <= file.size());
    out.push_back(file.substr(at + 12, length));
    at += 12 + length + 4;
  }
  return out;
}

uint32_t bits_of(float f) {
  uint32_t b = 0;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

TEST_CASE("TensorBoard's Summary definition reads every scalar, zero and negative zero included", "[logging]") {
  const std::string dir = runner::test::tmp_dir("tensorboard-scalars");
  {
    auto logger = runner::make_tensorboard_logger(runner::LoggerContext{dir, false, "scalars"});
    nlohmann::json train = {{"event", "train"}, {"step", 1}, {"wall_time", 1000.0}};
    train["lr"] = 0.0;  // a warm-up from 0
    train["grad_norm"] = -0.0;
    train["loss"] = std::numeric_limits<double>::quiet_NaN();
    train["loss_scale"] = std::numeric_limits<double>::infinity();
    train["samples_per_s"] = -std::numeric_limits<double>::infinity();
    train["tokens_per_s"] = 1.5;
    logger->log(train);
    logger->log({{"event", "eval"}, {"step", 1}, {"wall_time", 1001.0}, {"f1", 0.0}, {"examples", 8}});
  }
  std::string file;
  for (const auto& e : fs::directory_iterator(dir + "/tensorboard")) file = runner::test::read_text(e.path().string());
  std::map<std::string, uint32_t> scalars;
  for (const std::string& record : records_of(file))
    for (const auto& [tag, bits] : scalars_of(record)) scalars[tag] = bits;
  REQUIRE(scalars.count("train/lr") == 1);
  CHECK(scalars["train/lr"] == 0u);
  REQUIRE(scalars.count("train/grad_norm") == 1);
  CHECK(scalars["train/grad_norm"] == 0x80000000u);
  REQUIRE(scalars.count("train/loss") == 1);
  float loss = 0;
  std::memcpy(&loss, &scalars["train/loss"], 4);
  CHECK(std::isnan(loss));
  CHECK(scalars["train/loss_scale"] == bits_of(std::numeric_limits<float>::infinity()));
  CHECK(scalars["train/samples_per_s"] == bits_of(-std::numeric_limits<float>::infinity()));
  CHECK(scalars["train/tokens_per_s"] == bits_of(1.5f));
  REQUIRE(scalars.count("eval/f1") == 1);
  CHECK(scalars["eval/f1"] == 0u);
  CHECK(scalars.count("eval/examples") == 0);  // a count, not a measurement
}
