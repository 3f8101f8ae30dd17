// The memory a loaded tokenizer and the encoding of a 1 MB text take, for
// each kind of pipeline (WordPiece, byte-level BPE, Unigram, and a BPE
// without a pre-tokenizer, whose whole line is one word), bounded by limits
// derived from the sizes of the file and the text. Each `runner tokenize` is
// measured by /usr/bin/time; `runner version` gives the process's own size.
#include "catch.h"

#include "bounded_run.h"
#include "shared.h"
#include "tokenizer/pipeline_parts.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using runner::test::run_bounded;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Loading a tokenizer.json of F bytes holds, at its peak: the file's text
// (twice while it is read into a growing string: 2F); its JSON tree, where a
// vocabulary entry (at least 6 bytes of the file: "a": 1,) is a map node of
// 96 bytes with malloc's header (16F); the tokenizer's tables built from it
// while the tree lives, a token string, a hash node and a bucket per entry
// (112 bytes: 19F); and a trie or merge table beside them, at most as large
// again (19F). 56F in all, rounded up to 64F.
constexpr double kLoadBytesPerFileByte = 64;

// Encoding a text of n bytes holds, at its peak: the JSONL line, its parsed
// string and the copy handed to the tokenizer (3n); the normalizer's input and
// its output, at most 4n + 64 (normalizers.cpp's bound: 5n); the pieces of
// the pre-tokenizer, one per word and one per space at most (n / 2 each for
// these one- and two-letter words: n pieces), each a hf::Piece in two vectors
// (a pass's input and output) with room for twice their count (4 sizeof(Piece)
// per piece); the ids, one per byte at most, 4 bytes with room for twice as
// many (8n); and the BPE merge of one word as long as the text, per character
// a symbol, two links and two heap entries of 20 bytes with room for twice as
// many (12 + 80 = 92n).
double encode_bytes_per_text_byte() { return 3 + 5 + 4.0 * sizeof(runner::hf::Piece) + 8 + 92; }

// Megabytes of slack for what the page granularity and malloc's arenas add to
// a measured peak: 16 MiB, a few arenas' worth.
constexpr double kSlackMiB = 16;

// A JSONL line {"text_a": ...} of about `bytes` bytes of one- and two-letter
// words, ASCII and not: the most pieces a text of that size gives.
std::string text_line(size_t bytes) {
  static const std::vector<std::string> words = {"a", "b", "ok", "\xC3\xA9", "x", "\xE6\x9D\xB1", "no", "i"};
  std::string text;
  for (size_t i = 0; text.size() < bytes; ++i) text += (i ? " " : "") + words[i % words.size()];
  return nlohmann::json{{"text_a", text}}.dump() + "\n";
}

long peak_mib(const std::string& args) {
  auto r = run_bounded("timeout 300 " + runner::test::runner_exe() + args);
  INFO(args << "\n" << r.out.substr(0, 2000));
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.peak_mib > 0);
  return r.peak_mib;
}

}  // namespace

TEST_CASE("a loaded tokenizer and the encoding of a 1 MB text take memory bounded by their sizes", "[tokenizer]") {
  const std::string dir = runner::test::tmp_dir("tokenizer_memory");
  const std::string big = dir + "/big.jsonl", small = dir + "/small.jsonl";
  std::ofstream(big) << text_line(1 << 20);
  std::ofstream(small) << text_line(1);
  const double text_bytes = static_cast<double>(fs::file_size(big));
  const long process = peak_mib(" version");
  const std::string golden = runner::test::source_dir() + "/tests/tokenizer/golden/";
  for (const std::string& file : {runner::test::shared_dir() + "/models/bert-base-uncased/tokenizer.json",
                                  golden + "roberta_bpe.tokenizer.json", golden + "deberta_unigram.tokenizer.json",
                                  golden + "llama_bpe.tokenizer.json"}) {
    INFO(file);
    const std::string tokenize = " tokenize --tokenizer " + file + " --max-length 16 --input ";
    const long loaded = peak_mib(tokenize + small);
    const long encoded = peak_mib(tokenize + big);
    const double file_bytes = static_cast<double>(fs::file_size(file));
    const double load_limit = kLoadBytesPerFileByte * file_bytes / kMiB + kSlackMiB;
    const double encode_limit = encode_bytes_per_text_byte() * text_bytes / kMiB + kSlackMiB;
    INFO("process " << process << " MiB, loaded " << loaded << " MiB (limit +" << load_limit << "), encoded "
                    << encoded << " MiB (limit +" << encode_limit << ")");
    CHECK(loaded - process <= load_limit);
    CHECK(encoded - loaded <= encode_limit);
  }
}
