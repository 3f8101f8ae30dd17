// Commands that read JSONL examples: tokenize, predict.
#include "cli/commands.h"

#include "model/predict.h"
#include "tokenizer/tokenize_command.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

namespace runner {

// An integer flag value, or an error message naming the flag.
static bool int_flag(const ParsedArgs& args, const std::string& flag, int& value) {
  if (!args.has(flag)) return true;
  std::string text = args.get(flag);
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') {
    std::cerr << fmt::format("error: {}: expected an integer, found \"{}\"\n", flag, text);
    return false;
  }
  value = static_cast<int>(v);
  return true;
}

// Runs `body` over --input (or standard input when it is absent).
template <class Body>
static int with_input(const ParsedArgs& args, Body body) {
  std::string input = args.get("--input");
  if (input.empty()) return body(std::cin);
  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::cerr << fmt::format("error: --input: cannot open {}\n", input);
    return kExitBadInput;
  }
  return body(in);
}

int cmd_tokenize(const ParsedArgs& args) {
  TokenizeCommandOptions options;
  options.tokenizer = args.get("--tokenizer", options.tokenizer);
  options.truncation = args.get("--truncation", options.truncation);
  options.format = args.get("--tokenizer-format", options.format);
  options.input = args.get("--input");
  if (!int_flag(args, "--max-length", options.max_length)) return kExitBadInput;
  return with_input(args, [&](std::istream& in) {
    return run_tokenize_command(options, in, std::cout, std::cerr);
  });
}

int cmd_predict(const ParsedArgs& args) {
  PredictCommandOptions options;
  options.model = args.get("--model");
  options.tokenizer = args.get("--tokenizer");
  options.truncation = args.get("--truncation", options.truncation);
  if (!int_flag(args, "--max-length", options.max_length) ||
      !int_flag(args, "--batch-size", options.batch_size))
    return kExitBadInput;
  if (options.model.empty()) {
    std::cerr << "error: runner predict needs --model DIR (a Hugging Face folder)\n";
    return kExitBadInput;
  }
  return with_input(args, [&](std::istream& in) {
    return run_predict_command(options, in, std::cout, std::cerr);
  });
}

}  // namespace runner
