// Commands that read JSONL examples: tokenize, predict.
#include "cli/commands.h"

#include "cli/run_names.h"
#include "model/predict.h"
#include "tokenizer/tokenize_command.h"
#include "util/input_file.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace runner {

// An integer flag into `value` (kept when the flag is absent); false, with the
// error printed, when it is not an integer in the flag's declared range.
static bool int_flag(const ParsedArgs& args, const std::string& flag, int& value) {
  try {
    value = static_cast<int>(integer_flag(args, flag, value));
    return true;
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return false;
  }
}

// Runs `body` over --input (or standard input when it is absent).
template <class Body>
static int with_input(const ParsedArgs& args, Body body) {
  std::string input = args.get("--input");
  if (input.empty()) return body(std::cin);
  check_input_file({input, "--input", kMaxDataFileBytes, "pass a JSONL file, or leave --input out "
                                                         "to read standard input"});
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
  options.attention_mask = args.has("--attention-mask");
  if (!int_flag(args, "--max-length", options.max_length)) return kExitBadInput;
  return with_input(args, [&](std::istream& in) {
    return run_tokenize_command(options, in, std::cout, std::cerr);
  });
}

// --model may name a run (its directory, runs/NAME or NAME): its final/ model.
static std::string model_folder_of(const std::string& model) {
  std::string run = run_dir_argument(model, std::cerr);
  std::error_code ec;
  if (std::filesystem::is_regular_file(run + "/env.json", ec) &&
      std::filesystem::is_regular_file(run + "/final/config.json", ec))
    return run + "/final";
  return model;
}

int cmd_predict(const ParsedArgs& args) {
  PredictCommandOptions options;
  options.model = args.get("--model");
  options.tokenizer = args.get("--tokenizer");
  options.truncation = args.get("--truncation", options.truncation);
  options.probabilities = args.has("--probabilities");
  options.input_name = args.get("--input", options.input_name);
  if (!int_flag(args, "--max-length", options.max_length) ||
      !int_flag(args, "--batch-size", options.batch_size))
    return kExitBadInput;
  if (options.model.empty()) {
    std::cerr << "error: runner predict needs --model DIR (a Hugging Face folder)\n";
    return kExitBadInput;
  }
  options.model = model_folder_of(options.model);
  return with_input(args, [&](std::istream& in) {
    return run_predict_command(options, in, std::cout, std::cerr);
  });
}

}  // namespace runner
