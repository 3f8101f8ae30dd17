// The body of `runner tokenize`: JSONL in ({"text_a": ..., "text_b": ...}),
// the same lines out with "input_ids" and "token_type_ids" (and, when asked,
// "attention_mask") added, so anyone can diff the runner against another tokenizer.
#pragma once

#include <iosfwd>
#include <string>

namespace runner {

struct TokenizeCommandOptions {
  std::string tokenizer = "bert-base-uncased";  // --tokenizer: folder or file; relative paths
                                                // that do not exist resolve against $RUNNER_MODELS
  int max_length = 512;                         // --max-length
  std::string truncation = "longest_first";     // --truncation
  std::string input;                            // --input FILE; empty = stdin
  std::string format = "auto";                  // --format: auto, vocab_txt, tokenizer_json
  bool attention_mask = false;                  // --attention-mask: add "attention_mask" too
};

// Returns the exit code: 0, or 2 for bad input (a message naming the line goes to `err`).
int run_tokenize_command(const TokenizeCommandOptions& options, std::istream& in,
                         std::ostream& out, std::ostream& err);

}  // namespace runner
