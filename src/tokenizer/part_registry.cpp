#include "tokenizer/part_registry.h"

#include "tokenizer/bpe_model.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/precompiled_normalizer.h"
#include "tokenizer/post_processors.h"
#include "tokenizer/pre_tokenizers.h"
#include "tokenizer/unigram_model.h"
#include "tokenizer/wordpiece_model.h"

namespace runner::hf {

namespace {

template <class Part>
using Builder = std::unique_ptr<Part> (*)(const JsonPart&);

template <class Part>
struct Entry {
  const char* type;
  Builder<Part> build;
};

// The lists: adding a part is one line here and its builder.
const std::vector<Entry<Normalizer>> kNormalizers = {
    {"NFC", build_nfc},
    {"NFD", build_nfd},
    {"NFKC", build_nfkc},
    {"NFKD", build_nfkd},
    {"Lowercase", build_lowercase},
    {"StripAccents", build_strip_accents},
    {"BertNormalizer", build_bert_normalizer},
    {"Replace", build_replace},
    {"Prepend", build_prepend},
    {"Strip", build_strip},
    {"Precompiled", build_precompiled},
    {"Sequence", build_normalizer_sequence},
};

const std::vector<Entry<PreTokenizer>> kPreTokenizers = {
    {"ByteLevel", build_byte_level},
    {"Metaspace", build_metaspace},
    {"Whitespace", build_whitespace},
    {"WhitespaceSplit", build_whitespace_split},
    {"BertPreTokenizer", build_bert_pre_tokenizer},
    {"Punctuation", build_punctuation},
    {"Split", build_split},
    {"Sequence", build_pre_tokenizer_sequence},
};

const std::vector<Entry<Model>> kModels = {
    {"BPE", build_bpe},
    {"Unigram", build_unigram},
    {"WordPiece", build_wordpiece_model},
};

const std::vector<Entry<PostProcessor>> kPostProcessors = {
    {"RobertaProcessing", build_roberta_processing},
    {"BertProcessing", build_bert_processing},
    {"TemplateProcessing", build_template_processing},
    {"ByteLevel", build_byte_level_processing},
    {"Sequence", build_post_processor_sequence},
};

template <class Part>
std::vector<std::string> names(const std::vector<Entry<Part>>& list) {
  std::vector<std::string> out;
  for (const auto& e : list) out.emplace_back(e.type);
  return out;
}

template <class Part>
std::unique_ptr<Part> build(const std::vector<Entry<Part>>& list, const char* kind, const JsonPart& part) {
  std::string type = part.type();
  for (const auto& e : list)
    if (type == e.type) return e.build(part);
  part.unsupported(std::string(kind) + " \"" + type + "\"", names(list));
}

}  // namespace

std::unique_ptr<Normalizer> build_normalizer(const JsonPart& part) { return build(kNormalizers, "normalizer", part); }
std::unique_ptr<PreTokenizer> build_pre_tokenizer(const JsonPart& part) {
  return build(kPreTokenizers, "pre-tokenizer", part);
}
// Older files leave out the model's "type"; tokenizers then tells the models
// apart by their fields, as here.
std::unique_ptr<Model> build_model(const JsonPart& part) {
  if (part.json().is_object() && !part.has("type")) {
    if (part.has("merges")) return build_bpe(part);
    if (part.at("vocab").json().is_array()) return build_unigram(part);
    if (part.has("max_input_chars_per_word") || part.has("continuing_subword_prefix"))
      return build_wordpiece_model(part);
  }
  return build(kModels, "model", part);
}
std::unique_ptr<PostProcessor> build_post_processor(const JsonPart& part) {
  return build(kPostProcessors, "post-processor", part);
}

std::vector<std::string> supported_parts(const std::string& kind) {
  if (kind == "normalizer") return names(kNormalizers);
  if (kind == "pre_tokenizer") return names(kPreTokenizers);
  if (kind == "model") return names(kModels);
  if (kind == "post_processor") return names(kPostProcessors);
  return {};
}

}  // namespace runner::hf
