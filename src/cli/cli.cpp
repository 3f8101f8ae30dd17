#include "cli/cli.h"

#include "cli/run_names.h"

#include "cli/commands.h"
#include "cli/full_runner.h"
#include "recipe/unsupported.h"
#include "registry/plugin.h"
#include "util/diagnostic.h"
#include "util/output_check.h"
#include "util/paths.h"
#include "util/suggest.h"
#include "util/torch_linked.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <iostream>

namespace runner {
namespace {

bool looks_like_recipe(const std::string& arg) {
  for (const char* ext : {".toml", ".yaml", ".yml"}) {
    std::string e(ext);
    if (arg.size() > e.size() && arg.compare(arg.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

// The commands other tools (Transformers' examples, Lightning, Accelerate) give
// to what a runner command does: no spelling distance leads from "train" to "run".
std::string command_of_other_tools(const std::string& name) {
  static const std::vector<std::pair<std::string, std::string>> others = {
      {"train", "run"},      {"fit", "run"},          {"finetune", "run"},   {"fine-tune", "run"},
      {"check", "validate"}, {"lint", "validate"},    {"config", "print-config"},
      {"infer", "predict"},  {"inference", "predict"}, {"download", "fetch"}, {"torchrun", "launch"},
  };
  for (const auto& [other, ours] : others)
    if (other == name && find_command(ours)) return ours;
  return "";
}

int unknown_command(const std::string& name) {
  std::vector<std::string> known;
  for (const auto& c : command_table()) known.push_back(c.name);
  std::string ours = command_of_other_tools(name);
  std::string hint = ours.empty() ? did_you_mean(name, known) : "did you mean \"" + ours + "\"?";
  if (ours.empty()) hint = unsupported_feature(name).value_or(hint);
  std::cerr << fmt::format("error: unknown command \"{}\"\n  hint: {}\n", name,
                           hint.empty() ? "run `runner --help` for the commands" : hint);
  return kExitBadInput;
}

// Arguments end up in the run's JSON records (the command line, recipe and data
// paths), which are UTF-8: an argument that is not is refused before anything runs.
bool arguments_are_utf8(const std::vector<std::string>& args) {
  for (size_t k = 0; k < args.size(); ++k) {
    std::optional<InvalidUtf8> bad = first_invalid_utf8(args[k]);
    if (!bad) continue;
    std::string shown = args[k];
    for (char& c : shown)
      if (static_cast<unsigned char>(c) > 0x7E || static_cast<unsigned char>(c) < 0x20) c = '?';
    std::cerr << fmt::format("error: argument {} (\"{}\") has an {} at character {}: arguments "
                             "must be UTF-8 text\n  hint: rename the file to a UTF-8 name (e.g. "
                             "`convmv -f latin1 -t utf-8`), or pass the value as UTF-8\n",
                             k + 1, shown, bad->what(), bad->column);
    return false;
  }
  return true;
}

// "DIR|RUN|ID" (predict --model) may be a path too: any alternative counts.
bool is_path_metavar(const std::string& metavar) {
  size_t start = 0;
  while (start <= metavar.size()) {
    size_t end = std::min(metavar.find('|', start), metavar.size());
    std::string alternative = metavar.substr(start, end - start);
    if (alternative == "FILE" || alternative == "DIR" || alternative == "PATH" || alternative == "RUN_DIR")
      return true;
    start = end + 1;
  }
  return false;
}

// A path past the system's limits would meet the file system's raw "File name
// too long" wherever it is first used: every path argument (and a Hub name,
// which becomes a cache path) is checked here, before anything runs.
bool path_arguments_fit(const CommandSpec& cmd, const ParsedArgs& parsed) {
  std::vector<std::pair<std::string, std::string>> paths;  // (where it was given, the path)
  const auto& given = parsed.positionals();
  for (size_t i = 0; i < given.size() && !cmd.positionals.empty(); ++i)
    paths.push_back({cmd.positionals[std::min(i, cmd.positionals.size() - 1)].name, given[i]});
  for (const auto& flag : flag_table())
    if (is_path_metavar(flag.metavar) && parsed.has(flag.name))
      for (const auto& v : parsed.all(flag.name)) paths.push_back({flag.name, v});
  for (const auto& [where, path] : paths) {
    std::string problem = path_length_problem(path);
    if (problem.empty()) continue;
    std::cerr << fmt::format("error: {} \"{}...\": {}\n  hint: name a shorter path (a symbolic link to a "
                             "deep folder is one way)\n",
                             where, terminal_safe(path.substr(0, 40)), problem);
    return false;
  }
  return true;
}

// `argv` as main got it: argv[0], then the arguments.
int dispatch(const std::vector<std::string>& argv) {
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  if (!arguments_are_utf8(args)) return kExitBadInput;
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    if (args.size() > 1)
      if (const CommandSpec* c = find_command(args[1])) {
        std::cout << command_help(*c);
        return kExitOk;
      }
    std::cout << general_help();
    return args.empty() ? kExitBadInput : kExitOk;
  }
  if (args[0] == "--version") return cmd_version(ParsedArgs{});
  std::vector<std::string> rest(args.begin() + 1, args.end());
  std::string name = args[0];
  if (!find_command(name) && looks_like_recipe(name) && find_command("run")) {
    rest.insert(rest.begin(), name);
    name = "run";
  }
  const CommandSpec* cmd = find_command(name);
  if (!cmd) return unknown_command(name);
  for (const auto& a : rest)
    if (a == "--help" || a == "-h") {
      std::cout << command_help(*cmd);
      return kExitOk;
    }
  ParsedArgs parsed;
  parsed.argv = args;
  std::string error;
  if (!parse_command_args(*cmd, rest, parsed, error)) {
    std::cerr << "error: " << error << "\n  hint: see `runner " << cmd->name << " --help`\n";
    return kExitBadInput;
  }
  if (!path_arguments_fit(*cmd, parsed)) return kExitBadInput;
  // Checked here, so that a mistyped command line costs no LibTorch start.
  if (cmd->needs == Needs::LibTorch && !links_torch()) return hand_to_full_runner(argv);
  if (parsed.has("--runs")) search_runs_first_in(parsed.all("--runs"));
  return cmd->handler(parsed);
}

}  // namespace

int cli_main(int argc, char** argv) {
  // A write to a reader that went away (a data-parallel peer's gloo socket, output
  // piped into `head`) must come back as EPIPE, which a run survives and records,
  // not end the process by SIGPIPE: from the first line, since a run prints its
  // directory and its data lines before the training session starts.
  std::signal(SIGPIPE, SIG_IGN);
  reopen_closed_standard_streams();  // before any file is opened
  std::vector<std::string> command_line(argv, argv + argc);
  if (command_line.empty()) command_line.push_back("runner");  // execve may pass no argv[0]
  if (int refused = refuse_front_in_full_runners_place(); refused != kExitOk) return refused;
  try {
    int rc = dispatch(command_line);
    // Every command's standard output, checked once at the end: a full disk or
    // /dev/full turns a success into exit 2 with a message (a command that
    // failed has said why already).
    if (rc == kExitOk && !standard_output_complete(std::cerr)) rc = kExitBadInput;
    return rc;
  } catch (const StandardOutputReaderLeft&) {
    return kExitReaderLeft;  // quietly: the reader took what it wanted
  } catch (const PluginNeedsFullRunner&) {
    // Met while the recipe loads, before the command prints anything.
    return hand_to_full_runner(command_line);
  } catch (const InputError& e) {
    std::cerr << e.diagnostic().format() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << without_backtrace(e.what()) << "\n";
    return kExitFailure;
  }
}

}  // namespace runner
