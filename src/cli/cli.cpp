#include "cli/cli.h"

#include "cli/commands.h"
#include "util/diagnostic.h"
#include "util/suggest.h"
#include "util/utf8.h"

#include <fmt/format.h>

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

int unknown_command(const std::string& name) {
  std::vector<std::string> known;
  for (const auto& c : command_table()) known.push_back(c.name);
  std::string hint = did_you_mean(name, known);
  std::cerr << fmt::format("error: unknown command \"{}\"{}\n  hint: {}\n", name,
                           looks_like_recipe(name) ? "" : "",
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

int dispatch(const std::vector<std::string>& args) {
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
  return cmd->handler(parsed);
}

}  // namespace

int cli_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return dispatch(args);
  } catch (const InputError& e) {
    std::cerr << e.diagnostic().format() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace runner
