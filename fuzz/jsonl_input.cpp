// JSONL lines as `runner tokenize` reads them (stdin) and as the jsonl
// dataset reads a split file (text_a, text_b and label keys).
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include "data/dataset.h"
#include "registry/registry.h"
#include "tokenizer/tokenize_command.h"

#include <sstream>

namespace runner::fuzz {
namespace {

// A vocabulary small enough to load per input, with the special tokens and
// enough pieces that words split into several.
constexpr std::string_view kVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\nb\nc\nthe\nfilm\n##s\n##ing\n.\n,\n!\n\"\n";

}  // namespace

void jsonl_input(std::string_view bytes) {
  static const std::string vocab = write_scratch("jsonl-vocab/vocab.txt", kVocab);

  TokenizeCommandOptions options;
  options.tokenizer = vocab;
  options.max_length = 32;
  std::istringstream in{std::string(bytes)};
  std::ostringstream out, err;
  run_tokenize_command(options, in, out, err);

  write_scratch("jsonl/train.jsonl", bytes);
  nlohmann::json data = {{"dir", scratch_dir() + "/jsonl"},
                         {"columns", {{"text_a", "text_a"}, {"text_b", "text_b"}, {"label", "label"}}},
                         {"labels", {{"neg", 0}, {"pos", 1}}},
                         {"num_labels", 2},
                         {"on_bad_row", bytes.size() % 2 ? "skip" : "error"}};
  refusing_is_fine([&] {
    auto dataset = registry().factory<DatasetFactory>(Kind::Dataset, "jsonl")(data);
    dataset->load_split("train");
  });
}

}  // namespace runner::fuzz
