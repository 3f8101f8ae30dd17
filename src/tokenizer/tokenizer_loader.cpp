#include "tokenizer/tokenizer_loader.h"

#include "registry/builtins.h"
#include "registry/registry.h"
#include "tokenizer/json_tokenizer.h"
#include "tokenizer/spm_tokenizer.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"

namespace fs = std::filesystem;

namespace runner {

namespace {

// Added tokens the WordPiece tokenizer knows: BERT's five specials.
bool only_bert_specials(const nlohmann::json& added) {
  if (!added.is_array()) return true;
  for (const auto& t : added) {
    std::string content = t.is_object() && t.contains("content") && t["content"].is_string() ? t["content"].get<std::string>() : "";
    if (content != "[PAD]" && content != "[UNK]" && content != "[CLS]" && content != "[SEP]" && content != "[MASK]")
      return false;
  }
  return true;
}

// BERT's own tokenizer.json: a WordPiece model with BERT's normalizer and
// pre-tokenizer (or none) and no added tokens but its specials; the WordPiece
// tokenizer reads those (with transformers' truncation). Any other goes
// through the pipeline, which honours every added token.
bool is_bert_wordpiece(const nlohmann::json& j) {
  if (!j.is_object()) return true;  // load_wordpiece names what is wrong
  if (!only_bert_specials(j.value("added_tokens", nlohmann::json()))) return false;
  auto type_is = [&](const char* section, const char* want, bool null_ok) {
    if (!j.contains(section) || j[section].is_null()) return null_ok;
    const nlohmann::json& s = j[section];
    return s.is_object() && s.contains("type") && s["type"] == want;
  };
  // Older files (bert-base-uncased's) leave out the model's type: a WordPiece
  // vocabulary is an object and comes without merges.
  const nlohmann::json model = j.value("model", nlohmann::json());
  const bool untyped_wordpiece = model.is_object() && !model.contains("type") && !model.contains("merges") &&
                                 model.contains("vocab") && model["vocab"].is_object();
  return (untyped_wordpiece || type_is("model", "WordPiece", true)) && type_is("normalizer", "BertNormalizer", true) &&
         type_is("pre_tokenizer", "BertPreTokenizer", true);
}

}  // namespace

std::shared_ptr<const Tokenizer> load_tokenizer(const WordPieceSource& source) {
  fs::path file = tokenizer_file(source);
  if (file.extension() == ".model") {
    if (source.lowercase != "auto")
      throw InputError(make_error({file.string(), 0, 0, {}}, "tokenizer.lowercase",
                                  "lowercase = \"" + source.lowercase + "\" applies to WordPiece tokenizers only; "
                                  "a SentencePiece model's folder says it in tokenizer_config.json (do_lower_case)",
                                  "remove tokenizer.lowercase"));
    return load_spm_tokenizer(file.string());
  }
  if (file.extension() != ".json") return load_wordpiece(source);
  const std::string text = read_input_file({file.string(), "", kMaxDocumentBytes, "check the tokenizer path"});
  nlohmann::json j = parse_json(text, {file.string(), 1, "re-save the tokenizer with save_pretrained"});
  if (is_bert_wordpiece(j)) return load_wordpiece(source);
  if (source.lowercase != "auto")
    throw InputError(make_error({file.string(), 0, 0, {}}, "tokenizer.lowercase",
                                "lowercase = \"" + source.lowercase + "\" applies to WordPiece tokenizers only; "
                                "this tokenizer.json says itself whether it lower-cases (its normalizer)",
                                "remove tokenizer.lowercase"));
  return load_json_tokenizer(file.string());
}

namespace {

WordPieceSource source_of(const nlohmann::json& options) {
  WordPieceSource src;
  src.path = options.value("path", std::string());
  src.format = options.value("format", "auto");
  src.lowercase = options.value("lowercase", "auto");
  return src;
}

// validate's look at a tokenizer.json that is not BERT's: the whole pipeline is
// built, so that a part the runner does not implement is refused before a run.
// A missing path is the path check's to report.
Diagnostics check_tokenizer_in_recipe(const nlohmann::json& recipe) {
  const nlohmann::json section = recipe.value("tokenizer", nlohmann::json::object());
  WordPieceSource src = source_of(section);
  std::error_code ec;
  if (src.path.empty() || !fs::exists(src.path, ec)) return {};
  try {
    const fs::path file = tokenizer_file(src);
    if (file.extension() == ".json" || file.extension() == ".model") load_tokenizer(src);
  } catch (const InputError& e) {
    Diagnostic d = e.diagnostic();
    if (d.key_path.empty()) d.key_path = "tokenizer.path";
    return {d};
  }
  return {};
}

ComponentSpec tokenizer_spec() {
  ComponentSpec spec{
          Kind::Tokenizer,
          "wordpiece",
          "BERT WordPiece with Hugging Face BertTokenizer semantics; any other tokenizer.json (BPE, Unigram) runs "
          "as Hugging Face tokenizers runs it",
          {
              opt::model_path("path", "bert-base-uncased",
                              "Model folder with vocab.txt and/or tokenizer.json (or a DeBERTa folder's spm.model), or one such file; unset: "
                              "model.pretrained's folder when the recipe names one"),
              opt::choice("format", {"auto", "vocab_txt", "tokenizer_json"}, "auto",
                          "Which file to read from a folder; auto prefers vocab.txt"),
              opt::choice("lowercase", {"auto", "true", "false"}, "auto",
                          "Lower-case and strip accents; auto reads do_lower_case from the files"),
          }};
  spec.recipe_check = check_tokenizer_in_recipe;
  return spec;
}

}  // namespace

void register_tokenizers(Registry& r) {
  add_builtin(r, tokenizer_spec(), TokenizerFactory([](const nlohmann::json& options) -> std::shared_ptr<const Tokenizer> {
                return load_tokenizer(source_of(options));
              }));
}

}  // namespace runner
