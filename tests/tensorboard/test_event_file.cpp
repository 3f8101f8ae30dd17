// CRC-32C against the test vectors of RFC 3720 (iSCSI, appendix B.4) and the
// TFRecord framing the tensorboard logger writes around each Event.
#include "catch.h"

#include "run/tensorboard_logger.h"
#include "util/crc32c.h"

#include <cstring>
#include <string>

using runner::digest::crc32c;
using runner::digest::masked_crc32c;

TEST_CASE("crc32c matches the RFC 3720 test vectors and the standard check value", "[logging]") {
  CHECK(crc32c("123456789") == 0xE3069283u);
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending += static_cast<char>(i);
  CHECK(crc32c(ascending) == 0x46DD794Eu);
  // The mask rotates right by 15 and adds a constant: 0xE3069283 -> 0x2507c60d + 0xa282ead8.
  CHECK(masked_crc32c("123456789") == ((0xE3069283u >> 15 | 0xE3069283u << 17) + 0xa282ead8u));
}

TEST_CASE("a TFRecord is the length, its masked CRC, the data and the data's masked CRC", "[logging]") {
  std::string data = "hello event";
  std::string r = runner::tfrecord(data);
  REQUIRE(r.size() == 8 + 4 + data.size() + 4);
  uint64_t length = 0;
  std::memcpy(&length, r.data(), 8);  // little-endian on the machines this builds for
  CHECK(length == data.size());
  uint32_t length_crc = 0, data_crc = 0;
  std::memcpy(&length_crc, r.data() + 8, 4);
  std::memcpy(&data_crc, r.data() + 12 + data.size(), 4);
  CHECK(length_crc == masked_crc32c(r.substr(0, 8)));
  CHECK(r.substr(12, data.size()) == data);
  CHECK(data_crc == masked_crc32c(data));
}
