// A Hugging Face tokenizer.json run as the `tokenizers` library runs it: added
// tokens, normalizer, pre-tokenizer, model (BPE, Unigram, WordPiece),
// post-processor, and its truncation. Parts are built through part_registry.h;
// one that is not implemented is refused when the file is loaded.
#pragma once

#include "tokenizer/added_tokens.h"
#include "tokenizer/pipeline_parts.h"
#include "tokenizer/tokenizer.h"
#include "util/sha256.h"

#include <nlohmann/json.hpp>

namespace runner {

class JsonTokenizer : public Tokenizer {
 public:
  struct Parts {
    std::unique_ptr<hf::Normalizer> normalizer;      // may be null
    std::unique_ptr<hf::PreTokenizer> pre_tokenizer;  // may be null
    std::unique_ptr<hf::Model> model;
    std::unique_ptr<hf::PostProcessor> post_processor;
  };
  JsonTokenizer(Parts parts, hf::AddedTokens added, SpecialTokenIds special, std::string fingerprint);

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override;
  Encoding encode_texts(std::string_view text_a, std::optional<std::string_view> text_b,
                        const EncodeOptions& opts) const override;
  Encoding encode_ids(std::vector<int32_t> ids, const EncodeOptions& opts,
                      std::vector<int32_t>& positions) const override;
  int32_t largest_type_id(bool pair) const override;
  const SpecialTokenIds& special_ids() const override { return special_; }
  size_t vocab_size() const override;
  std::string id_to_token(int32_t id) const override;
  int32_t token_to_id(std::string_view token) const;
  std::string fingerprint() const override { return fingerprint_; }
  // The pipeline's parts, read by the offset alignment (token_offsets.h).
  const Parts& parts() const { return parts_; }
  const hf::AddedTokens& added_tokens() const { return added_; }
  // While loading: the ids are looked up through the finished tokenizer.
  void set_special_ids(const SpecialTokenIds& special) { special_ = special; }

 private:
  Parts parts_;
  hf::AddedTokens added_;
  SpecialTokenIds special_;
  std::string fingerprint_;
};

// Reads `file` (a tokenizer.json) and, when present beside it,
// tokenizer_config.json for the names of the pad/unk/mask tokens.
// Throws InputError naming the file and JSON path of anything it cannot run.
std::shared_ptr<const JsonTokenizer> load_json_tokenizer(const std::string& file);

// The same from a tokenizer.json object already in memory (one converted from
// another format): `file` names it in errors and locates tokenizer_config.json;
// `digest` holds what it was made from, and the fingerprint continues it.
std::shared_ptr<const JsonTokenizer> json_tokenizer_from(const nlohmann::json& tokenizer_json, const std::string& file,
                                                         digest::Sha256& digest);

}  // namespace runner
