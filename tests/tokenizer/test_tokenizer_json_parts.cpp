// A tokenizer.json that uses a part the runner does not implement is refused
// when loaded, naming the part, its JSON path and what is supported, with
// exit code 2 from `validate` and `tokenize`; small files check the parts'
// semantics that the trained goldens do not reach.
#include "catch.h"

#include "shared.h"
#include "tokenizer/encoding.h"
#include "tokenizer/part_registry.h"
#include "tokenizer/tokenizer_loader.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

using namespace runner;

namespace {

// A byte-level BPE tokenizer.json over the letters a, b and their merge "ab".
nlohmann::json small_bpe() {
  nlohmann::json vocab = nlohmann::json::object();
  vocab["<s>"] = 0;
  vocab["</s>"] = 1;
  vocab["a"] = 2;
  vocab["b"] = 3;
  vocab["ab"] = 4;
  vocab["\xC4\xA0"] = 5;  // "Ġ", the byte-level space
  return {{"version", "1.0"},
          {"added_tokens", nlohmann::json::array({{{"id", 0}, {"content", "<s>"}, {"special", true}, {"normalized", false}},
                                                  {{"id", 1}, {"content", "</s>"}, {"special", true}, {"normalized", false}}})},
          {"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
          {"post_processor", {{"type", "RobertaProcessing"}, {"sep", {"</s>", 1}}, {"cls", {"<s>", 0}}}},
          {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array({nlohmann::json::array({"a", "b"})})}}}};
}

std::string write_tokenizer(const std::string& name, const nlohmann::json& j) {
  std::string dir = test::tmp_dir(name);
  std::ofstream(dir + "/tokenizer.json") << j.dump();
  return dir;
}

std::string load_error(const nlohmann::json& j, const std::string& name) {
  try {
    load_tokenizer({write_tokenizer(name, j)});
  } catch (const InputError& e) {
    return e.diagnostic().format();
  }
  return "loaded";
}

}  // namespace

TEST_CASE("a tokenizer.json part outside the registry is refused by name, place and alternatives", "[tokenizer]") {
  nlohmann::json j = small_bpe();
  j["normalizer"] = {{"type", "Sequence"},
                     {"normalizers", nlohmann::json::array({{{"type", "NFC"}}, {{"type", "Nmt"}}})}};
  std::string err = load_error(j, "tokjson_nmt");
  CHECK_THAT(err, Catch::Contains("tokenizer.json") && Catch::Contains("normalizer.normalizers[1]") &&
                      Catch::Contains("normalizer \"Nmt\" is not supported") && Catch::Contains("NFKC"));

  j = small_bpe();
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"Regex", "\\s+$"}}}, {"content", ""}};
  CHECK_THAT(load_error(j, "tokjson_replace_regex"),
             Catch::Contains("normalizer.pattern") && Catch::Contains("Regex pattern \"\\\\s+$\""));

  j = small_bpe();
  j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "\\d+"}}}, {"behavior", "Isolated"}};
  CHECK_THAT(load_error(j, "tokjson_regex"), Catch::Contains("pre_tokenizer.pattern") && Catch::Contains("Regex"));

  j = small_bpe();
  j["model"] = {{"type", "WordLevel"}, {"vocab", nlohmann::json::object()}};
  CHECK_THAT(load_error(j, "tokjson_wordlevel"),
             Catch::Contains("model: model \"WordLevel\" is not supported") && Catch::Contains("BPE, Unigram, WordPiece"));

  j = small_bpe();
  j["model"]["dropout"] = 0.1;
  CHECK_THAT(load_error(j, "tokjson_dropout"), Catch::Contains("model.dropout") && Catch::Contains("BPE dropout"));
}

TEST_CASE("every registered part kind lists its implemented types", "[tokenizer]") {
  CHECK(hf::supported_parts("model") == std::vector<std::string>{"BPE", "Unigram", "WordPiece"});
  CHECK(hf::supported_parts("pre_tokenizer").size() == 8);
  CHECK(hf::supported_parts("normalizer").size() == 12);
  CHECK(hf::supported_parts("post_processor").size() == 5);
}

TEST_CASE("a small byte-level BPE file merges, adds RoBERTa's specials and splits glued special tokens",
          "[tokenizer]") {
  auto tok = load_tokenizer({write_tokenizer("tokjson_small", small_bpe())});
  EncodeOptions opts;
  // "ab" merges; " a" is Ġ then a (no merge "Ġa"); "</s>" glued to text is the special token.
  CHECK(encode(*tok, "ab a</s>b", std::nullopt, opts).input_ids == std::vector<int32_t>{0, 4, 5, 2, 1, 3, 1});
  Encoding pair = encode(*tok, "ab", std::optional<std::string_view>("b"), opts);
  CHECK(pair.input_ids == std::vector<int32_t>{0, 4, 1, 1, 3, 1});
  CHECK(pair.token_type_ids == std::vector<int32_t>(6, 0));
  CHECK(tok->special_ids().cls == 0);
  CHECK(tok->special_ids().sep == 1);
  // No pad and no unk token: batches pad with id 0, which the attention mask hides.
  CHECK(tok->special_ids().pad == 0);
}

TEST_CASE("the pad id comes from tokenizer_config.json's pad_token", "[tokenizer]") {
  std::string dir = write_tokenizer("tokjson_pad", small_bpe());
  std::ofstream(dir + "/tokenizer_config.json") << R"({"pad_token": {"content": "</s>"}})";
  CHECK(load_tokenizer({dir})->special_ids().pad == 1);
}

TEST_CASE("validate and tokenize refuse a tokenizer.json with an unimplemented part, exit 2", "[tokenizer][cli]") {
  nlohmann::json j = small_bpe();
  j["pre_tokenizer"] = {{"type", "UnicodeScripts"}};
  std::string dir = write_tokenizer("tokjson_refused_cli", j);
  auto validate = test::run_command(test::runner_exe() + " validate " + test::smoke_recipe() +
                                    " --set tokenizer.path=" + dir + " 2>&1");
  CHECK(validate.exit_code == 2);
  CHECK_THAT(validate.out, Catch::Contains("pre-tokenizer \"UnicodeScripts\" is not supported"));
  auto tokenize = test::run_command("echo '{\"text_a\": \"ab\"}' | " + test::runner_exe() + " tokenize --tokenizer " +
                                    dir + " 2>&1");
  CHECK(tokenize.exit_code == 2);
  CHECK_THAT(tokenize.out, Catch::Contains("pre_tokenizer") && Catch::Contains("UnicodeScripts"));
}

namespace {

// BPE over a, b, ▁ and the merges ▁a, ▁b, with <unk> and an added <mask>.
nlohmann::json unk_bpe(bool fuse_unk, const nlohmann::json& pre_tokenizer) {
  nlohmann::json vocab = {{"<unk>", 0}, {"a", 1}, {"b", 2}, {"\xE2\x96\x81", 3}, {"<mask>", 4},
                          {"\xE2\x96\x81" "a", 5}, {"\xE2\x96\x81" "b", 6}};
  nlohmann::json merges = nlohmann::json::array(
      {nlohmann::json::array({"\xE2\x96\x81", "a"}), nlohmann::json::array({"\xE2\x96\x81", "b"})});
  return {{"added_tokens", {{{"id", 4}, {"content", "<mask>"}, {"special", true}, {"normalized", false}}}},
          {"pre_tokenizer", pre_tokenizer},
          {"model", {{"type", "BPE"}, {"unk_token", "<unk>"}, {"fuse_unk", fuse_unk}, {"vocab", vocab}, {"merges", merges}}}};
}

std::vector<int32_t> ids_of(const Tokenizer& tok, std::string_view text) {
  std::vector<int32_t> ids;
  tok.tokenize(text, ids);
  return ids;
}

}  // namespace

// The expected ids below are what tokenizers 0.23.3 gives for the same files.
TEST_CASE("BPE fuses consecutive unknown characters into one unk only with fuse_unk", "[tokenizer]") {
  auto fused = load_tokenizer({write_tokenizer("tokjson_fuse", unk_bpe(true, nullptr))});
  auto unfused = load_tokenizer({write_tokenizer("tokjson_nofuse", unk_bpe(false, nullptr))});
  CHECK(ids_of(*fused, "xxa") == std::vector<int32_t>{0, 1});
  CHECK(ids_of(*unfused, "xxa") == std::vector<int32_t>{0, 0, 1});
  // No post-processor: nothing added, the second text has type id 1.
  EncodeOptions opts;
  CHECK(encode(*fused, "a", std::optional<std::string_view>("xy"), opts).token_type_ids == std::vector<int32_t>{0, 1});
}

TEST_CASE("Metaspace prepend_scheme first prepends only at the start of the text, not after an added token",
          "[tokenizer]") {
  nlohmann::json metaspace = {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", "first"}, {"split", true}};
  auto tok = load_tokenizer({write_tokenizer("tokjson_first", unk_bpe(false, metaspace))});
  CHECK(ids_of(*tok, "a<mask>b") == std::vector<int32_t>{5, 4, 2});
  CHECK(ids_of(*tok, "<mask>a b") == std::vector<int32_t>{4, 1, 6});
  CHECK(ids_of(*tok, " a") == std::vector<int32_t>{5});
  CHECK(ids_of(*tok, "a b") == std::vector<int32_t>{5, 6});
}

// Every id a tokenizer.json makes the runner emit (a post-processor's special
// tokens, the padding id) is an int32 of the vocabulary, and every type id fits
// the byte it is stored in: refused at load, naming the key, before a run could
// reach LibTorch's index error or wrap 2^32 + 2 to 2.
TEST_CASE("a tokenizer.json id outside the vocabulary or int32, or a type id past a byte, is refused at load",
          "[tokenizer]") {
  struct Spoiled {
    std::string name, says;
    nlohmann::json file;
  };
  std::vector<Spoiled> cases;
  nlohmann::json j = small_bpe();
  j["post_processor"]["cls"] = {"<s>", -3};
  cases.push_back({"negative", "post_processor.cls: expected a token id from 0 to 2147483647, found -3", j});
  j = small_bpe();
  j["post_processor"]["sep"] = {"</s>", 4294967298LL};
  cases.push_back({"wrapping", "post_processor.sep: expected a token id from 0 to 2147483647, found 4294967298", j});
  j = small_bpe();
  j["post_processor"]["sep"] = {"</s>", 600};
  cases.push_back({"outside", "adds token id 600, which the vocabulary (6 tokens) does not have", j});
  j = small_bpe();
  j["post_processor"] = {{"type", "TemplateProcessing"},
                         {"single", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                         {"pair", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 1000000}}}}}},
                         {"special_tokens", nlohmann::json::object()}};
  cases.push_back({"type_id", "type_id: expected a type id from 0 to 255", j});
  j = small_bpe();
  j["padding"] = {{"pad_id", 10000000}};
  cases.push_back({"pad_id", "padding.pad_id: expected a token id of the vocabulary (0 to 5), found 10000000", j});
  for (const Spoiled& c : cases) {
    INFO(c.name);
    std::string error = load_error(c.file, "tokjson_ids_" + c.name);
    INFO(error);
    CHECK_THAT(error, Catch::Contains("tokenizer.json") && Catch::Contains(c.says));
  }
  // validate refuses such a file as the run would, before anything runs.
  std::string dir = write_tokenizer("tokjson_ids_cli", cases.front().file);
  auto validate = test::run_command(test::runner_exe() + " validate " + test::smoke_recipe() +
                                    " --set tokenizer.path=" + dir + " 2>&1");
  CHECK(validate.exit_code == 2);
  CHECK_THAT(validate.out, Catch::Contains("post_processor.cls"));
}

// A Metaspace whose replacement is not one character (the empty one would match
// everywhere and split without end) is refused at load; a Replace rule that would
// grow a text past 4x is refused when it meets such a text, before building it.
TEST_CASE("a normalizer or pre-tokenizer that would grow without bound is refused", "[tokenizer]") {
  nlohmann::json j = small_bpe();
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", ""}, {"prepend_scheme", "always"}, {"split", true}};
  CHECK_THAT(load_error(j, "tokjson_metaspace_empty"),
             Catch::Contains("pre_tokenizer.replacement: expected one character"));
  j = small_bpe();
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", "a"}}}, {"content", std::string(1000, 'b')}};
  auto tok = load_tokenizer({write_tokenizer("tokjson_replace_grows", j)});
  std::vector<int32_t> ids;
  try {
    tok->tokenize("a short line with a few a's", ids);
    FAIL("a text grown a thousandfold was tokenized");
  } catch (const InputError& e) {
    CHECK_THAT(e.diagnostic().format(), Catch::Contains("Replace normalizer would grow") &&
                                            Catch::Contains("more than 4 times"));
  }
  // A rule of about its pattern's length is untouched: " " -> the 3-byte marker.
  j = small_bpe();
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}};
  auto spaces = load_tokenizer({write_tokenizer("tokjson_replace_marker", j)});
  ids.clear();
  CHECK_NOTHROW(spaces->tokenize("                ", ids));
}
