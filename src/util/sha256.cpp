#include "util/sha256.h"

#include "util/diagnostic.h"
#include "util/input_file.h"

#include <openssl/evp.h>

#include <fstream>
#include <limits>
#include <stdexcept>
#include <vector>

namespace runner::digest {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL could not start a SHA-256 digest");
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

Sha256& Sha256::update(const void* data, size_t size) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data, size);
  return *this;
}

Sha256& Sha256::update(std::string_view bytes) { return update(bytes.data(), bytes.size()); }

std::string Sha256::hex_digest() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(hex[md[i] >> 4]);
    out.push_back(hex[md[i] & 15]);
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) { return Sha256().update(bytes).hex_digest(); }

std::string sha256_file(const std::string& path) {
  // Weights and checkpoints are gigabytes, so no size limit; but a FIFO or a
  // device named as a data or model file would block the open or never end.
  check_input_file({path, "", std::numeric_limits<uint64_t>::max(), ""});
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(make_error({path, 0, 0, {}}, {}, "cannot open the file to hash it"));
  Sha256 h;
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.update(buf.data(), static_cast<size_t>(in.gcount()));
  }
  return h.hex_digest();
}

}  // namespace runner::digest
