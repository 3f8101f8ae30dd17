// The protobuf wire format, as much of it as a ModelProto uses: each field is a
// varint key (field number << 3 | wire type) then a varint (type 0), 8 bytes
// (1), a varint length and that many bytes (2: strings, bytes, sub-messages) or
// 4 bytes (5: floats). Fields this reader does not need are skipped.
#include "tokenizer/sentencepiece_model.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <functional>

namespace runner {
namespace {

class WireReader {
 public:
  WireReader(const std::string& bytes, size_t begin, size_t end, const std::string& file)
      : bytes_(bytes), pos_(begin), end_(end), file_(file) {}

  bool done() const { return pos_ >= end_; }

  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= end_) fail("a varint runs past the end of its message");
      const auto byte = static_cast<uint8_t>(bytes_[pos_++]);
      value |= uint64_t{byte & 0x7Fu} << shift;
      if (!(byte & 0x80u)) return value;
    }
    fail("a varint is longer than 10 bytes");
  }

  // The next field's number and wire type.
  std::pair<uint32_t, uint32_t> key() {
    const uint64_t k = varint();
    return {static_cast<uint32_t>(k >> 3), static_cast<uint32_t>(k & 7)};
  }

  // A length-delimited field's extent [begin, end).
  std::pair<size_t, size_t> span() {
    const uint64_t n = varint();
    if (n > end_ - pos_) fail("a length-delimited field runs past the end of its message");
    const size_t begin = pos_;
    pos_ += static_cast<size_t>(n);
    return {begin, pos_};
  }

  std::string string() {
    auto [b, e] = span();
    return bytes_.substr(b, e - b);
  }

  float fixed32_float() {
    if (end_ - pos_ < 4) fail("a 32-bit field runs past the end of its message");
    uint32_t bits = 0;
    for (int i = 3; i >= 0; --i) bits = (bits << 8) | static_cast<uint8_t>(bytes_[pos_ + static_cast<size_t>(i)]);
    pos_ += 4;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }

  void skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0: varint(); return;
      case 1: advance(8); return;
      case 2: span(); return;
      case 5: advance(4); return;
      default: fail(fmt::format("wire type {} is not one a ModelProto uses", wire_type));
    }
  }

  // Each field of this message in turn; `field` returns false for one it does not read.
  void for_each(const std::function<bool(uint32_t, uint32_t)>& field) {
    while (!done()) {
      auto [number, type] = key();
      if (!field(number, type)) skip(type);
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(make_error({file_, 0, 0, {}}, "tokenizer.path",
                                fmt::format("not a SentencePiece model: {} (at byte {})", what, pos_),
                                "point tokenizer.path at the model folder's spm.model, or save a tokenizer.json "
                                "with save_pretrained"));
  }

 private:
  void advance(size_t n) {
    if (end_ - pos_ < n) fail("a fixed-size field runs past the end of its message");
    pos_ += n;
  }
  const std::string& bytes_;
  size_t pos_, end_;
  const std::string& file_;
};

SentencePieceModel::Piece read_piece(WireReader in) {
  SentencePieceModel::Piece p;
  in.for_each([&](uint32_t number, uint32_t type) {
    if (number == 1 && type == 2) p.text = in.string();
    else if (number == 2 && type == 5) p.score = in.fixed32_float();
    else if (number == 3 && type == 0) p.type = static_cast<int>(in.varint());
    else return false;
    return true;
  });
  return p;
}

void read_trainer_spec(WireReader in, SentencePieceModel& m) {
  in.for_each([&](uint32_t number, uint32_t type) {
    if (type != 0) return false;
    if (number == 3) m.model_type = static_cast<int>(in.varint());
    else if (number == 35) m.byte_fallback = in.varint() != 0;
    else if (number == 40) m.unk_id = static_cast<int>(static_cast<int32_t>(in.varint()));
    else return false;
    return true;
  });
}

void read_normalizer_spec(WireReader in, SentencePieceModel& m) {
  in.for_each([&](uint32_t number, uint32_t type) {
    if (number == 1 && type == 2) m.normalizer_name = in.string();
    else if (number == 2 && type == 2) m.precompiled_charsmap = in.string();
    else if (number == 3 && type == 0) m.add_dummy_prefix = in.varint() != 0;
    else if (number == 4 && type == 0) m.remove_extra_whitespaces = in.varint() != 0;
    else if (number == 5 && type == 0) m.escape_whitespaces = in.varint() != 0;
    else return false;
    return true;
  });
}

}  // namespace

SentencePieceModel parse_sentencepiece_model(const std::string& bytes, const std::string& file) {
  SentencePieceModel m;
  WireReader in(bytes, 0, bytes.size(), file);
  in.for_each([&](uint32_t number, uint32_t type) {
    if (type != 2 || number < 1 || number > 3) return false;
    auto [b, e] = in.span();
    WireReader sub(bytes, b, e, file);
    if (number == 1) m.pieces.push_back(read_piece(sub));
    else if (number == 2) read_trainer_spec(sub, m);
    else read_normalizer_spec(sub, m);
    return true;
  });
  if (m.pieces.empty()) in.fail("it holds no pieces");
  if (m.unk_id < 0 || static_cast<size_t>(m.unk_id) >= m.pieces.size())
    in.fail(fmt::format("its unk_id {} is not one of its {} pieces", m.unk_id, m.pieces.size()));
  return m;
}

}  // namespace runner
