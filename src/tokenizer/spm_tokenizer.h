// A DeBERTa-v2/v3 folder's spm.model read directly, when the folder has no
// tokenizer.json: the model is laid out as the tokenizer.json that
// Transformers' DebertaV2Converter makes of it (and that save_pretrained would
// write), then runs through the tokenizer.json pipeline (json_tokenizer.h).
#pragma once

#include "tokenizer/json_tokenizer.h"
#include "tokenizer/sentencepiece_model.h"

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

// DebertaV2Converter's layout: normalizer Sequence[Lowercase when do_lower_case,
// Strip, Precompiled (the model's charsmap, when it has one), Replace " {2,}" ->
// " "]; pre-tokenizer Metaspace (prepend "always" with the model's dummy prefix,
// else "never"), after Punctuation isolated when split_by_punct; the Unigram
// model with the pieces' scores, unk_id and byte_fallback; [CLS] A [SEP] (B
// [SEP]) with type ids 0 and 1; the unknown, control and user-defined pieces
// (DebertaV2Tokenizer's special tokens), and [MASK] after the pieces when the
// model lacks it, as special added tokens. An
// InputError naming `file` for a model that is not Unigram.
nlohmann::json deberta_v2_tokenizer_json(const SentencePieceModel& model, bool do_lower_case, bool split_by_punct,
                                         const std::string& file);

// Reads `file` (spm.model) and tokenizer_config.json beside it (do_lower_case,
// split_by_punct; both false when absent).
std::shared_ptr<const JsonTokenizer> load_spm_tokenizer(const std::string& file);

}  // namespace runner
