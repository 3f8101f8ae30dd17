// CRC-32C (Castagnoli), the checksum of TFRecord framing, and the "masked"
// form TensorFlow stores so that a CRC of data holding CRCs stays well mixed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace runner::digest {

uint32_t crc32c(std::string_view bytes);
// ((crc >> 15) | (crc << 17)) + 0xa282ead8, as TFRecord writers store it.
uint32_t masked_crc32c(std::string_view bytes);

}  // namespace runner::digest
