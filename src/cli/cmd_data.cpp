// Commands that read examples: tokenize (JSONL), predict (JSONL, CSV or TSV).
#include "cli/commands.h"

#include "cli/recipe_input.h"
#include "cli/run_checkpoints.h"
#include "cli/run_names.h"
#include "cli/table_input.h"
#include "hub/named_sources.h"
#include "data/qa_dataset.h"
#include "model/adapter_config.h"
#include "model/predict.h"
#include "model/task_head.h"
#include "train/predict_answers.h"
#include "train/predict_entities.h"
#include "tokenizer/tokenize_command.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/numbers.h"
#include "util/paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
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

// --input as given, or "" for standard input: left out, `-` or /dev/stdin.
static std::string input_file(const ParsedArgs& args) {
  std::string input = args.get("--input");
  return input.empty() || names_standard_input(input) ? "" : input;
}

// Runs `body` over --input (or standard input when it is absent).
template <class Body>
static int with_input(const ParsedArgs& args, Body body) {
  std::string input = input_file(args);
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
  options.input = input_file(args);
  options.attention_mask = args.has("--attention-mask");
  if (!int_flag(args, "--max-length", options.max_length)) return kExitBadInput;
  return with_input(args, [&](std::istream& in) {
    return run_tokenize_command(options, in, std::cout, std::cerr);
  });
}

// A folder as given, else what model.pretrained (or tokenizer.path) would read
// for the same name: a folder under $RUNNER_MODELS, or a Hub id from the
// Hugging Face cache, a pip package or a download (none offline). A name that
// resolves to nothing comes back as given, for the loader to report.
static std::string named_folder(const std::string& name, hub::Fetchable what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  bool explicit_path = name.rfind("./", 0) == 0 || name.rfind("../", 0) == 0 || fs::path(name).is_absolute();
  if (explicit_path || fs::exists(name, ec)) return name;
  std::string folder = hub::locate({what, name, resolve_against(model_root(), name), "models_root"});
  return fs::exists(folder, ec) ? folder : name;
}

// What --model named: a run (its directory, runs/NAME or NAME), whose final/
// model is taken; else a folder or a name, as model.pretrained takes it.
struct PredictModel {
  std::string folder;
  bool by_name = false;  // a name resolved to `folder`, which may not hold the tokenizer
  std::string run;       // the run whose final/ `folder` is, or empty
};

static PredictModel model_folder_of(const std::string& model) {
  std::string run = run_dir_argument(model, std::cerr, RunArgument::MayBeOther);
  std::error_code ec;
  if (std::filesystem::is_regular_file(run + "/env.json", ec) &&
      std::filesystem::is_regular_file(run + "/final/config.json", ec)) {
    verified_final_weights(RunPaths{run});
    return {run + "/final", false, run};
  }
  const std::filesystem::path given = std::filesystem::path(model).lexically_normal();
  if (given.filename() == "final" && std::filesystem::is_regular_file(given.parent_path() / "env.json", ec)) {
    verified_final_weights(RunPaths{given.parent_path().string()});  // RUN/final named directly
    return {model, false, given.parent_path().string()};
  }
  std::string folder = named_folder(model, hub::Fetchable::Model);
  return {folder, folder != model, ""};
}

// The text columns a run's [data] mapped (data.columns' text_a and text_b), so that
// predict reads a file laid out as the run's own splits; empty when it mapped none.
static std::map<std::string, std::string> text_columns_of(const nlohmann::json& data) {
  std::map<std::string, std::string> out;
  const nlohmann::json columns = record_object(data, "columns");
  for (const char* role : {"text_a", "text_b"})
    if (columns.contains(role) && columns[role].is_string()) out[role] = columns[role].get<std::string>();
  if (!out.count("text_a")) out.clear();
  return out;
}

// The run's settings that predict reads as training read them: the text
// columns of a file input without --columns (as evaluate --input reads it),
// the max_length (unless --max-length is given), a token task's add_prefix_space,
// a question answering task's windows and post-processing, and the [model]
// and [lora] sections that built a LoRA run's model.
static void apply_run_data(const std::string& run, const ParsedArgs& args, PredictCommandOptions& o) {
  const std::string recipe = run + "/recipe.resolved.json";
  std::error_code ec;
  if (run.empty() || !std::filesystem::is_regular_file(recipe, ec)) return;
  const nlohmann::json resolved = read_json_file(recipe);
  o.run_model = record_object(resolved, "model");
  o.run_lora = resolved.contains("lora") ? record_object(resolved, "lora") : nlohmann::json();
  const nlohmann::json data = record_object(resolved, "data");
  if (o.columns.empty() && !input_file(args).empty()) o.columns = text_columns_of(data);
  if (!args.has("--max-length")) o.max_length = static_cast<int>(record_integer(data, "max_length", o.max_length));
  o.add_prefix_space = data.value("add_prefix_space", false);
  o.qa = qa_settings_from(data);
}

// A question answering folder without its run: run_qa.py's windows (384
// tokens, stride 128) within the model's positions.
static void qa_folder_defaults(const nlohmann::json& config, const ParsedArgs& args, PredictCommandOptions& o) {
  const long long positions = config.value("max_position_embeddings", 384LL);
  if (!args.has("--max-length")) o.max_length = static_cast<int>(std::min(384LL, std::max(positions, 16LL)));
  o.qa.doc_stride = std::min(128, o.max_length / 4);
}

// What each kind of model reads and writes; the flags of another kind are refused.
static int predict_by_head(TaskHead head, const PredictCommandOptions& options, std::istream& in) {
  if (head == TaskHead::SequenceClassification) return run_predict_command(options, in, std::cout, std::cerr);
  const char* kind = head == TaskHead::TokenClassification ? "token classification" : "question answering";
  const std::string fix = head == TaskHead::TokenClassification
                              ? "give JSONL lines {\"text\": \"...\"} or {\"tokens\": [...]}"
                              : "give JSONL lines {\"question\": \"...\", \"context\": \"...\"}";
  auto refuse = [&](const std::string& what) {
    std::cerr << fmt::format("error: {}: the model in {} is a {} model\n  hint: {}\n", what, options.model, kind,
                             what == "--columns" ? fix : "leave " + what + " out");
    return kExitBadInput;
  };
  if (options.format != "jsonl" || !options.columns.empty()) return refuse("--columns");
  if (options.threshold_given) return refuse("--threshold");
  if (options.probabilities) return refuse("--probabilities");
  if (head == TaskHead::TokenClassification) return run_entity_predict(options, in, std::cout, std::cerr);
  return run_answer_predict(options, in, std::cout, std::cerr);
}

// The base model folder of a LoRA adapter folder: --base, else what its
// adapter_config.json names, found as model.pretrained is.
static std::string adapter_base_folder(const std::string& adapter, const AdapterConfig& config,
                                       const ParsedArgs& args) {
  const std::string base = args.has("--base") ? args.get("--base") : config.base;
  if (base.empty())
    throw InputError(make_error(SourceLocation{adapter + "/adapter_config.json", 0, 0, {}}, "base_model_name_or_path",
                                "the adapter names no base model", "pass --base DIR|ID, the model it was trained on"));
  const std::string folder = named_folder(base, hub::Fetchable::Model);
  if (!std::filesystem::is_regular_file(folder + "/config.json"))
    throw InputError(make_error(SourceLocation{adapter + "/adapter_config.json", 0, 0, {}}, "base_model_name_or_path",
                                fmt::format("the adapter's base \"{}\" is no model folder here", base),
                                "pass --base DIR|ID, the model it was trained on"));
  return folder;
}

// Without --tokenizer, a model given by name brings its repository's tokenizer;
// "" means the model folder's own.
static std::string tokenizer_folder_of(const std::string& tokenizer, const std::string& model_arg,
                                       const PredictModel& model) {
  if (!tokenizer.empty()) return named_folder(tokenizer, hub::Fetchable::Tokenizer);
  if (!model.by_name) return "";
  try {
    return named_folder(model_arg, hub::Fetchable::Tokenizer);
  } catch (const hub::RepoLacksFiles& e) {
    Diagnostic d = e.diagnostic();
    d.hint = "pass --tokenizer with the tokenizer the model was trained with";
    throw InputError(d);
  }
}

int cmd_predict(const ParsedArgs& args) {
  PredictCommandOptions options;
  options.model = args.get("--model");
  options.tokenizer = args.get("--tokenizer");
  options.truncation = args.get("--truncation", options.truncation);
  options.probabilities = args.has("--probabilities");
  if (args.has("--threshold")) {
    std::string why;
    std::optional<double> p = parse_number(args.get("--threshold"), why, 0.0, 1.0);
    if (!p || *p <= 0.0 || *p >= 1.0) {
      std::cerr << "error: --threshold: expected a number between 0 and 1 (exclusive), found \""
                << args.get("--threshold") << "\"\n";
      return kExitBadInput;
    }
    options.threshold = *p;
    options.threshold_given = true;
  }
  if (!input_file(args).empty()) options.input_name = input_file(args);
  try {
    TableInput table = table_input_of(args, input_file(args));
    options.format = table.format;
    options.columns = table.columns;
    options.header = table.header.value_or(true);
  } catch (const InputError& e) {
    std::cerr << e.diagnostic().format() << "\n";
    return kExitBadInput;
  }
  if (!int_flag(args, "--max-length", options.max_length) ||
      !int_flag(args, "--batch-size", options.batch_size))
    return kExitBadInput;
  if (options.model.empty()) {
    std::cerr << "error: runner predict needs --model DIR|RUN|ID (a Hugging Face folder, a run or a Hub id)\n";
    return kExitBadInput;
  }
  TaskHead head = TaskHead::SequenceClassification;
  try {
    PredictModel model = model_folder_of(options.model);
    options.tokenizer = tokenizer_folder_of(options.tokenizer, options.model, model);
    options.model = model.folder;
    std::optional<AdapterConfig> adapter;
    if (is_adapter_folder(options.model)) adapter = read_adapter_config(options.model);
    if (adapter) options.base = adapter_base_folder(options.model, *adapter, args);
    const nlohmann::json config = read_json_file((adapter ? options.base : options.model) + "/config.json");
    head = adapter ? adapter->head : task_head_of(config);
    if (head == TaskHead::QuestionAnswering && model.run.empty()) qa_folder_defaults(config, args, options);
    apply_run_data(model.run, args, options);
  } catch (const InputError& e) {
    std::cerr << e.diagnostic().format() << "\n";
    return kExitBadInput;
  }
  return with_input(args, [&](std::istream& in) { return predict_by_head(head, options, in); });
}

}  // namespace runner
