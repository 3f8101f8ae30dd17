#include "tokenizer/tokenize_command.h"


#include "tokenizer/encoding.h"
#include "tokenizer/tokenizer_loader.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/output_check.h"
#include "hub/named_sources.h"
#include "util/paths.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>

namespace runner {

namespace {

using ordered = nlohmann::ordered_json;

// Adds input_ids and token_type_ids (and attention_mask when `with_mask`) to one
// JSONL line; returns "" or what is wrong.
std::string encode_line(const std::string& line, const Tokenizer& tok, const EncodeOptions& opts, bool with_mask,
                        std::string& out_line) {
  std::string why;
  std::optional<ordered> parsed = try_parse_ordered_json(line, why);
  if (!parsed) return why;
  ordered& j = *parsed;
  if (!j.is_object()) return "not a JSON object";
  if (!j.contains("text_a") || !j["text_a"].is_string())
    return "\"text_a\" is missing or not a string";
  std::optional<std::string> b;
  if (j.contains("text_b") && !j["text_b"].is_null()) {
    if (!j["text_b"].is_string()) return "\"text_b\" is not a string or null";
    b = j["text_b"].get<std::string>();
  }
  std::optional<std::string_view> bv;
  if (b) bv = *b;
  Encoding e = encode(tok, j["text_a"].get<std::string>(), bv, opts);
  j["input_ids"] = e.input_ids;
  j["token_type_ids"] = e.token_type_ids;
  // Each line is encoded alone, without padding: every token is attended to.
  if (with_mask) j["attention_mask"] = std::vector<int32_t>(e.input_ids.size(), 1);
  out_line = j.dump(-1, ' ', false, ordered::error_handler_t::strict);
  return {};
}

// A folder or file as given, else under $RUNNER_MODELS, else a Hub id (cache, then download).
std::string resolve_tokenizer_path(const std::string& path) {
  std::error_code ec;  // a link that loops is there too: reading it says what it is
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return path;
  return hub::locate({hub::Fetchable::Tokenizer, path, resolve_against(model_root(), path), "models_root"});
}

}  // namespace

int run_tokenize_command(const TokenizeCommandOptions& options, std::istream& in,
                         std::ostream& out, std::ostream& err) {
  std::ifstream file;
  std::istream* src = &in;
  const std::string where = options.input.empty() ? "<stdin>" : options.input;
  EncodeOptions opts;
  try {
    opts.max_length = options.max_length;
    opts.truncation = truncation_from_name(options.truncation);
    if (options.max_length < 4) throw std::invalid_argument("--max-length must be at least 4");
    if (!options.input.empty()) {
      check_input_file({options.input, "--input", kMaxDataFileBytes,
                        "pass a JSONL file, or leave --input out to read standard input"});
      file.open(options.input, std::ios::binary);
      if (!file) throw InputError("cannot open --input " + options.input);
      src = &file;
    }
    auto tok = load_tokenizer({resolve_tokenizer_path(options.tokenizer), options.format, "auto"});
    std::string line, encoded;
    for (long long number = 1; read_bounded_line(*src, line, where, number); ++number) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::string why = encode_line(line, *tok, opts, options.attention_mask, encoded);
      if (!why.empty()) {
        err << where << ":" << number << ": error: " << why
            << "\n  hint: each line is one JSON object {\"text_a\": \"...\", \"text_b\": \"...\" or null}\n";
        return 2;
      }
      out << encoded << '\n';
      if (!out) require_written(out, "standard output");  // a closed pipe: stop now, not at the end
    }
    require_written(out, "standard output");
  } catch (const StandardOutputReaderLeft&) {
    throw;  // the caller ends the command quietly
  } catch (const InputError& e) {
    err << e.diagnostic().format() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace runner
