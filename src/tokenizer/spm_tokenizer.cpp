#include "tokenizer/spm_tokenizer.h"

#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace runner {
namespace {

// Standard base64 with padding, as tokenizers writes precompiled_charsmap.
std::string base64(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (rest == 2) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

nlohmann::json added_token(int64_t id, const std::string& content) {
  return {{"id", id}, {"content", content}, {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", true}};
}

nlohmann::json template_post_processor(int64_t cls, int64_t sep) {
  auto special = [](const char* id, int type) { return nlohmann::json{{"SpecialToken", {{"id", id}, {"type_id", type}}}}; };
  auto sequence = [](const char* id, int type) { return nlohmann::json{{"Sequence", {{"id", id}, {"type_id", type}}}}; };
  return {{"type", "TemplateProcessing"},
          {"single", {special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)}},
          {"pair", {special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1), special("[SEP]", 1)}},
          {"special_tokens",
           {{"[CLS]", {{"id", "[CLS]"}, {"ids", {cls}}, {"tokens", {"[CLS]"}}}},
            {"[SEP]", {{"id", "[SEP]"}, {"ids", {sep}}, {"tokens", {"[SEP]"}}}}}}};
}

int64_t piece_id(const SentencePieceModel& m, const std::string& text) {
  for (size_t i = 0; i < m.pieces.size(); ++i)
    if (m.pieces[i].text == text) return static_cast<int64_t>(i);
  return -1;
}

bool config_flag(const nlohmann::json& config, const char* key) {
  return config.is_object() && config.contains(key) && config[key].is_boolean() && config[key].get<bool>();
}

}  // namespace

nlohmann::json deberta_v2_tokenizer_json(const SentencePieceModel& m, bool do_lower_case, bool split_by_punct,
                                         const std::string& file) {
  if (m.model_type != SentencePieceModel::kUnigram)
    throw InputError(make_error({file, 0, 0, {}}, "tokenizer.path",
                                fmt::format("this SentencePiece model is of type {} (BPE, word or char); the runner "
                                            "reads Unigram models, as DeBERTa-v2/v3 ship",
                                            m.model_type),
                                "save the tokenizer as tokenizer.json with save_pretrained and point tokenizer.path at it"));
  nlohmann::json vocab = nlohmann::json::array(), added = nlohmann::json::array();
  for (size_t i = 0; i < m.pieces.size(); ++i) {
    const auto& p = m.pieces[i];
    vocab.push_back({p.text, static_cast<double>(p.score)});
    if (p.type == SentencePieceModel::kControl || p.type == SentencePieceModel::kUserDefined ||
        p.type == SentencePieceModel::kUnknown)
      added.push_back(added_token(static_cast<int64_t>(i), p.text));
  }
  if (piece_id(m, "[MASK]") < 0) added.push_back(added_token(static_cast<int64_t>(m.pieces.size()), "[MASK]"));
  nlohmann::json normalizers = nlohmann::json::array();
  if (do_lower_case) normalizers.push_back({{"type", "Lowercase"}});
  normalizers.push_back({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}});
  if (!m.precompiled_charsmap.empty())
    normalizers.push_back({{"type", "Precompiled"}, {"precompiled_charsmap", base64(m.precompiled_charsmap)}});
  normalizers.push_back({{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", " "}});
  nlohmann::json pre = {{"type", "Metaspace"}, {"replacement", "\u2581"},
                        {"prepend_scheme", m.add_dummy_prefix ? "always" : "never"}, {"split", true}};
  if (split_by_punct)
    pre = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Punctuation"}, {"behavior", "Isolated"}}, pre}}};
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", added},
          {"normalizer", {{"type", "Sequence"}, {"normalizers", normalizers}}},
          {"pre_tokenizer", pre},
          {"post_processor", template_post_processor(piece_id(m, "[CLS]"), piece_id(m, "[SEP]"))},
          {"decoder", nullptr},
          {"model", {{"type", "Unigram"}, {"unk_id", m.unk_id}, {"vocab", vocab}, {"byte_fallback", m.byte_fallback}}}};
}

std::shared_ptr<const JsonTokenizer> load_spm_tokenizer(const std::string& file) {
  const std::string bytes = read_input_file({file, "", kMaxDocumentBytes, "check the tokenizer path"});
  digest::Sha256 digest;
  digest.update("spm.model\n").update(bytes);
  const SentencePieceModel model = parse_sentencepiece_model(bytes, file);
  nlohmann::json config;
  const fs::path config_file = fs::path(file).parent_path() / "tokenizer_config.json";
  if (std::error_code ec; fs::is_regular_file(config_file, ec)) {
    const std::string text = read_input_file({config_file.string(), "", kMaxDocumentBytes, "check the tokenizer path"});
    config = parse_json(text, {config_file.string(), 1, "re-save the tokenizer with save_pretrained"});
  }
  const nlohmann::json j = deberta_v2_tokenizer_json(model, config_flag(config, "do_lower_case"),
                                                     config_flag(config, "split_by_punct"), file);
  return json_tokenizer_from(j, file, digest);
}

}  // namespace runner
