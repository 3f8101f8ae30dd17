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

// A normalizer may lengthen a text (NFKC, one space to "\xE2\x96\x81"), but
// never past 4 times and 64 bytes: a rule or a chain of rules from the file
// that grows it more is refused (InputError) before the text is built.
void require_bounded_growth(size_t before, size_t after, const char* normalizer);

}  // namespace runner::hf
