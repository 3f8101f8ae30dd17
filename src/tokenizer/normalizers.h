// The normalizers of a tokenizer.json, one builder each: the Unicode normal
// forms, Lowercase, StripAccents, BertNormalizer, Replace (string patterns),
// Prepend, Strip and Sequence, with the semantics of Hugging Face tokenizers.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

namespace runner::hf {

std::unique_ptr<Normalizer> build_nfc(const JsonPart& part);
std::unique_ptr<Normalizer> build_nfd(const JsonPart& part);
std::unique_ptr<Normalizer> build_nfkc(const JsonPart& part);
std::unique_ptr<Normalizer> build_nfkd(const JsonPart& part);
std::unique_ptr<Normalizer> build_lowercase(const JsonPart& part);
std::unique_ptr<Normalizer> build_strip_accents(const JsonPart& part);
std::unique_ptr<Normalizer> build_bert_normalizer(const JsonPart& part);
std::unique_ptr<Normalizer> build_replace(const JsonPart& part);
std::unique_ptr<Normalizer> build_prepend(const JsonPart& part);
std::unique_ptr<Normalizer> build_strip(const JsonPart& part);
std::unique_ptr<Normalizer> build_normalizer_sequence(const JsonPart& part);

}  // namespace runner::hf
