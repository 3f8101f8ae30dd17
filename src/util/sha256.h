// SHA-256 digests (OpenSSL libcrypto) for cache keys and checksums.
#pragma once

#include <string>
#include <string_view>

namespace runner::digest {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  Sha256& update(std::string_view bytes);
  Sha256& update(const void* data, size_t size);
  std::string hex_digest();  // finishes the digest; call once

 private:
  void* ctx_;
};

std::string sha256_hex(std::string_view bytes);
// Digest of a whole file's bytes; throws InputError when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace runner::digest
