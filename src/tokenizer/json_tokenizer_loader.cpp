// Builds a JsonTokenizer from a tokenizer.json: each section through the part
// registry, then the special-token ids the runner needs (pad above all).
#include "tokenizer/json_tokenizer.h"

#include "tokenizer/part_registry.h"
#include "tokenizer/post_processors.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/sha256.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace runner {

namespace {

constexpr const char* kResave = "re-save the tokenizer with save_pretrained";

std::string read_tokenizer_text(const std::string& path) {
  return read_input_file({path, "", kMaxDocumentBytes, "check the tokenizer path"});
}

// The token a tokenizer_config.json names for `key` (a string or an AddedToken object).
std::string config_token(const nlohmann::json& config, const char* key) {
  if (!config.is_object() || !config.contains(key)) return {};
  const nlohmann::json& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return {};
}

// The id of the first of `names` the tokenizer knows, or -1.
int32_t first_known(const JsonTokenizer& tok, std::initializer_list<std::string> names) {
  for (const std::string& n : names)
    if (!n.empty())
      if (int32_t id = tok.token_to_id(n); id >= 0) return id;
  return -1;
}

// An id the tokenizer.json gives at `key` of `part`, which must be a row of its vocabulary.
int32_t vocabulary_id(const JsonTokenizer& tok, const hf::JsonPart& part, const char* key) {
  const long long id = part.integer(key);
  if (id < 0 || id >= static_cast<long long>(tok.vocab_size()))
    part.fail(key, "expected a token id of the vocabulary (0 to " + std::to_string(tok.vocab_size() - 1) +
                       "), found " + std::to_string(id));
  return static_cast<int32_t>(id);
}

// Every id the post-processor adds must be a row of the vocabulary: one past it
// would reach the model's embedding lookup out of range.
void check_post_processor_ids(const JsonTokenizer& tok, const hf::PostProcessor& post, const hf::JsonPart& root) {
  for (int32_t id : post.special_ids())
    if (id < 0 || static_cast<size_t>(id) >= tok.vocab_size())
      root.at("post_processor").fail("", "adds token id " + std::to_string(id) + ", which the vocabulary (" +
                                             std::to_string(tok.vocab_size()) + " tokens) does not have");
}

SpecialTokenIds special_ids(const JsonTokenizer& tok, const nlohmann::json& config, const hf::JsonPart& root,
                            hf::Surrounding around) {
  SpecialTokenIds s;
  s.cls = around.first >= 0 ? around.first : first_known(tok, {config_token(config, "cls_token"), "<s>", "[CLS]"});
  s.sep = around.last >= 0 ? around.last : first_known(tok, {config_token(config, "sep_token"), "</s>", "[SEP]"});
  s.pad = first_known(tok, {config_token(config, "pad_token"), "<pad>", "[PAD]"});
  if (s.pad < 0 && root.at("padding").has("pad_id")) s.pad = vocabulary_id(tok, root.at("padding"), "pad_id");
  s.unk = first_known(tok, {config_token(config, "unk_token"), "<unk>", "[UNK]"});
  s.mask = first_known(tok, {config_token(config, "mask_token"), "<mask>", "[MASK]"});
  // A tokenizer without a pad token still pads batches: the attention mask hides
  // the padding, so any id serves; unk (or 0) keeps the embedding lookup in range.
  if (s.pad < 0) s.pad = s.unk >= 0 ? s.unk : 0;
  return s;
}

}  // namespace

std::shared_ptr<const JsonTokenizer> load_json_tokenizer(const std::string& file) {
  digest::Sha256 digest;
  const std::string text = read_tokenizer_text(file);
  digest.update("tokenizer.json\n").update(text);
  return json_tokenizer_from(parse_json(text, {file, 1, kResave}), file, digest);
}

std::shared_ptr<const JsonTokenizer> json_tokenizer_from(const nlohmann::json& j, const std::string& file,
                                                         digest::Sha256& digest) {
  hf::JsonPart root(j, file, "");
  if (!j.is_object()) root.fail("", "expected a JSON object (a Hugging Face tokenizer.json)");
  if (!root.has("model")) root.fail("model", "missing: a tokenizer.json holds its model (BPE, Unigram or WordPiece)");
  JsonTokenizer::Parts parts;
  if (root.has("normalizer")) parts.normalizer = hf::build_normalizer(root.at("normalizer"));
  if (root.has("pre_tokenizer")) parts.pre_tokenizer = hf::build_pre_tokenizer(root.at("pre_tokenizer"));
  parts.model = hf::build_model(root.at("model"));
  parts.post_processor = root.has("post_processor") ? hf::build_post_processor(root.at("post_processor"))
                                                     : hf::no_post_processor();
  const hf::Surrounding around = hf::surrounding_specials(*parts.post_processor);
  hf::AddedTokens added = hf::read_added_tokens(root.at("added_tokens"));

  nlohmann::json config;
  const fs::path config_file = fs::path(file).parent_path() / "tokenizer_config.json";
  if (std::error_code ec; fs::is_regular_file(config_file, ec)) {
    std::string config_text = read_tokenizer_text(config_file.string());
    digest.update("tokenizer_config.json\n").update(config_text);
    config = parse_json(config_text, {config_file.string(), 1, kResave});
  }
  // The pad id is known only once the tokenizer exists: build, then set it.
  const hf::PostProcessor* post = parts.post_processor.get();
  auto tok = std::make_shared<JsonTokenizer>(std::move(parts), std::move(added), SpecialTokenIds{}, digest.hex_digest());
  check_post_processor_ids(*tok, *post, root);
  tok->set_special_ids(special_ids(*tok, config, root, around));
  return tok;
}

}  // namespace runner
