#include "tokenizer/wordpiece_loader.h"

#include "util/sha256.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace runner {

namespace {

// Whether a folder entry is there, a link that loops or dangles included: it is
// then the file to read, and reading it names what is wrong with it (never
// filesystem's own "Too many levels of symbolic links" exception).
bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

InputError load_error(const std::string& file, std::string what, std::string hint = {}) {
  return InputError(make_error({file, 0, 0, {}}, {}, std::move(what), std::move(hint)));
}

std::string read_file(const std::string& path) {
  return read_input_file({path, "", kMaxDocumentBytes, "check the tokenizer path"});
}

nlohmann::json read_json(const std::string& path) {
  return parse_json(read_file(path), {path, 1, "re-save the tokenizer with save_pretrained"});
}

// obj[key] when it is a T; `fallback` when obj is no object or the key is
// absent or null; any other type is an error naming the file and key.
template <class T>
T field(const nlohmann::json& obj, const char* key, T fallback, const std::string& file,
        const std::string& path) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) return fallback;
  const nlohmann::json& v = obj[key];
  const char* want = std::is_same_v<T, bool> ? "true or false"
                     : std::is_same_v<T, std::string> ? "a string" : "an integer";
  bool ok = std::is_same_v<T, bool> ? v.is_boolean()
            : std::is_same_v<T, std::string> ? v.is_string() : v.is_number_integer();
  if (!ok) {
    std::string found = v.dump();
    if (found.size() > 40) found = found.substr(0, 40) + "...";
    throw load_error(file, fmt::format("{}{}: expected {}, found {}", path, key, want, found),
                     "re-save the tokenizer with save_pretrained");
  }
  return v.get<T>();
}

// Special tokens in tokenizer_config.json are strings or AddedToken objects.
void read_token(const nlohmann::json& config, const char* key, std::string& token,
                const std::string& file) {
  if (!config.contains(key)) return;
  const auto& v = config[key];
  if (v.is_string()) token = v.get<std::string>();
  else if (v.is_object()) token = field(v, "content", token, file, std::string(key) + ".");
}

void apply_tokenizer_config(const nlohmann::json& config, WordPieceSettings& s,
                            const std::string& file) {
  if (!config.is_object())
    throw load_error(file, "expected a JSON object", "re-save the tokenizer with save_pretrained");
  if (config.contains("do_lower_case") && config["do_lower_case"].is_boolean())
    s.lowercase = config["do_lower_case"].get<bool>();
  if (config.contains("strip_accents") && config["strip_accents"].is_boolean())
    s.strip_accents = config["strip_accents"].get<bool>();
  if (config.contains("tokenize_chinese_chars") && config["tokenize_chinese_chars"].is_boolean())
    s.tokenize_chinese_chars = config["tokenize_chinese_chars"].get<bool>();
  read_token(config, "unk_token", s.unk_token, file);
  read_token(config, "cls_token", s.cls_token, file);
  read_token(config, "sep_token", s.sep_token, file);
  read_token(config, "pad_token", s.pad_token, file);
  read_token(config, "mask_token", s.mask_token, file);
}

struct Loaded {
  std::vector<std::string> tokens;
  WordPieceSettings settings;
  std::string prefix = "##";
  digest::Sha256 digest;
};

void load_from_vocab_txt(const fs::path& vocab_file, Loaded& out) {
  std::string text = read_file(vocab_file.string());
  out.digest.update("vocab.txt\n").update(text);
  Vocab vocab = load_vocab_txt(vocab_file.string());
  for (size_t i = 0; i < vocab.size(); ++i) out.tokens.push_back(vocab.token(static_cast<int32_t>(i)));
  fs::path config = vocab_file.parent_path() / "tokenizer_config.json";
  if (present(config)) {
    std::string config_text = read_file(config.string());
    out.digest.update("tokenizer_config.json\n").update(config_text);
    apply_tokenizer_config(read_json(config.string()), out.settings, config.string());
  }
}

void require_type(const nlohmann::json& section, const char* want, const std::string& file,
                  const char* where) {
  if (section.is_null()) return;
  std::string type = field(section, "type", std::string(), file, std::string(where).substr(0, std::strlen(where) - 4));
  if (type != want)
    throw load_error(file, std::string(where) + " is '" + type + "', expected '" + want + "'",
                     "only BERT WordPiece tokenizer.json files are supported");
}

void read_vocab_map(const nlohmann::json& vocab, const std::string& file, Loaded& out) {
  if (!vocab.is_object()) throw load_error(file, "model.vocab is missing or not an object");
  out.tokens.assign(vocab.size(), std::string());
  std::vector<bool> seen(vocab.size(), false);
  for (const auto& [token, id_json] : vocab.items()) {
    long long id = id_json.is_number_integer() ? id_json.get<long long>() : -1;
    if (id < 0 || static_cast<size_t>(id) >= out.tokens.size() || seen[static_cast<size_t>(id)])
      throw load_error(file, "model.vocab maps '" + token + "' to id " + std::to_string(id) +
                                 ", expected ids 0.." + std::to_string(out.tokens.size() - 1) +
                                 " each used once");
    out.tokens[static_cast<size_t>(id)] = token;
    seen[static_cast<size_t>(id)] = true;
  }
}

void load_from_tokenizer_json(const fs::path& file, Loaded& out) {
  std::string name = file.string();
  out.digest.update("tokenizer.json\n").update(read_file(name));
  nlohmann::json j = read_json(name);
  if (!j.is_object())
    throw load_error(name, "expected a JSON object (a Hugging Face tokenizer.json)",
                     "re-save the tokenizer with save_pretrained");
  const nlohmann::json model = j.value("model", nlohmann::json());
  if (!model.is_object())
    throw load_error(name, std::string("model is ") + (model.is_null() ? "missing or null" : model.type_name()) +
                               ", expected an object holding the WordPiece vocabulary",
                     "re-save the tokenizer with save_pretrained");
  if (model.contains("type") && model["type"] != "WordPiece")
    throw load_error(name, "model.type is " + model["type"].dump() + ", expected \"WordPiece\"");
  require_type(j.value("normalizer", nlohmann::json()), "BertNormalizer", name, "normalizer.type");
  require_type(j.value("pre_tokenizer", nlohmann::json()), "BertPreTokenizer", name,
               "pre_tokenizer.type");
  read_vocab_map(model.value("vocab", nlohmann::json()), name, out);
  WordPieceSettings& s = out.settings;
  s.unk_token = field(model, "unk_token", s.unk_token, name, "model.");
  long long max_chars = field(model, "max_input_chars_per_word", 100LL, name, "model.");
  // A count of characters, unsigned in tokenizers: a negative one would make every word [UNK].
  if (max_chars < 0)
    throw load_error(name, "model.max_input_chars_per_word: expected 0 or more characters (BERT's is 100), found " +
                               std::to_string(max_chars),
                     "re-save the tokenizer with save_pretrained");
  // Longer words become [UNK] anyway; the bound keeps the int meaningful.
  s.max_input_chars_per_word = static_cast<int>(std::min(max_chars, 1LL << 20));
  out.prefix = field(model, "continuing_subword_prefix", std::string("##"), name, "model.");
  const nlohmann::json norm = j.value("normalizer", nlohmann::json());
  if (norm.is_object()) {
    s.lowercase = field(norm, "lowercase", true, name, "normalizer.");
    s.tokenize_chinese_chars = field(norm, "handle_chinese_chars", true, name, "normalizer.");
    if (norm.contains("strip_accents") && norm["strip_accents"].is_boolean())
      s.strip_accents = norm["strip_accents"].get<bool>();
  }
}

}  // namespace

fs::path tokenizer_file(const WordPieceSource& src) {
  fs::path p(src.path);
  std::error_code ec;
  if (!fs::is_directory(p, ec)) return p;
  fs::path vocab = p / "vocab.txt", json = p / "tokenizer.json", spm = p / "spm.model";
  if (src.format == "tokenizer_json" || (src.format == "auto" && !present(vocab))) {
    if (present(json)) return json;
    // A DeBERTa-v2/v3 folder as the Hub has it: its SentencePiece model only.
    if (src.format == "auto" && present(spm)) return spm;
  } else if (present(vocab)) {
    return vocab;
  }
  throw load_error(src.path, "the tokenizer folder has no " +
                                 std::string(src.format == "tokenizer_json" ? "tokenizer.json"
                                                                            : "vocab.txt, tokenizer.json or spm.model"),
                   "point tokenizer.path at a Hugging Face model folder");
}

std::shared_ptr<const WordPieceTokenizer> load_wordpiece(const WordPieceSource& source) {
  fs::path file = tokenizer_file(source);
  Loaded loaded;
  if (file.filename() == "tokenizer.json" || file.extension() == ".json")
    load_from_tokenizer_json(file, loaded);
  else
    load_from_vocab_txt(file, loaded);
  if (source.lowercase != "auto") loaded.settings.lowercase = source.lowercase == "true";
  const WordPieceSettings& s = loaded.settings;
  loaded.digest.update("settings\n")
      .update(std::to_string(s.lowercase) + std::to_string(s.strip_accents.value_or(s.lowercase)) +
              std::to_string(s.tokenize_chinese_chars) + std::to_string(s.max_input_chars_per_word) +
              "|" + s.unk_token + "|" + s.cls_token + "|" + s.sep_token + "|" + s.pad_token + "|" +
              s.mask_token + "|" + loaded.prefix);
  Vocab vocab(std::move(loaded.tokens), loaded.prefix);
  if (vocab.id(s.unk_token) < 0)
    throw load_error(file.string(), "the vocabulary has no unknown token '" + s.unk_token + "'",
                     "the vocabulary must contain the tokenizer's unk_token");
  return std::make_shared<WordPieceTokenizer>(std::move(vocab), loaded.settings,
                                              loaded.digest.hex_digest());
}

}  // namespace runner
