// Commands about data: tokenize.
#include "cli/commands.h"

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

int cmd_tokenize(const ParsedArgs& args) {
  TokenizeCommandOptions options;
  options.tokenizer = args.get("--tokenizer", options.tokenizer);
  options.truncation = args.get("--truncation", options.truncation);
  options.format = args.get("--tokenizer-format", options.format);
  options.input = args.get("--input");
  if (!int_flag(args, "--max-length", options.max_length)) return kExitBadInput;
  if (options.input.empty()) return run_tokenize_command(options, std::cin, std::cout, std::cerr);
  std::ifstream in(options.input, std::ios::binary);
  if (!in) {
    std::cerr << fmt::format("error: --input: cannot open {}\n", options.input);
    return kExitBadInput;
  }
  return run_tokenize_command(options, in, std::cout, std::cerr);
}

}  // namespace runner
