// A SentencePiece model file (spm.model: a ModelProto protobuf, as DeBERTa-v2/v3
// folders ship it) read without protobuf: the pieces with their scores and
// types, the trainer settings the tokenizer needs and the normalizer spec.
#pragma once

#include <string>
#include <vector>

namespace runner {

struct SentencePieceModel {
  // sentencepiece_model.proto's SentencePiece.Type.
  enum PieceType { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };
  // TrainerSpec.ModelType.
  enum ModelType { kUnigram = 1, kBpe = 2, kWord = 3, kChar = 4 };
  struct Piece {
    std::string text;
    float score = 0;
    int type = kNormal;
  };
  std::vector<Piece> pieces;
  int model_type = kUnigram;
  bool byte_fallback = false;
  int unk_id = 0;
  std::string normalizer_name, precompiled_charsmap;
  bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;
};

// Parses `bytes` (the file's content); an InputError naming `file` and the byte
// offset when they are not a ModelProto.
SentencePieceModel parse_sentencepiece_model(const std::string& bytes, const std::string& file);

}  // namespace runner
