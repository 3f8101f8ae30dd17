// The command line as data: every flag is declared once in flag_table(), every
// command once in command_table(); parsing, --help and the tests read them.
#pragma once

#include <climits>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace runner {

// The values an integer flag accepts; --help shows them.
struct IntRange {
  long long lo = 0, hi = 0;
};

struct FlagSpec {
  std::string name;     // "--set"
  std::string metavar;  // "KEY=VALUE"; empty for a switch
  std::string help;
  bool repeatable = false;
  std::optional<IntRange> integer = std::nullopt;  // set for the flags that take an integer
  bool takes_rest = false;  // every argument after it is one of its values (a tool's own options)
};

struct PositionalSpec {
  std::string name;  // "RECIPE"
  std::string help;
  bool required = true;
};

class ParsedArgs {
 public:
  bool has(const std::string& flag) const { return flags_.count(flag) > 0; }
  std::string get(const std::string& flag, const std::string& fallback = "") const;
  const std::vector<std::string>& all(const std::string& flag) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  std::string positional(size_t i, const std::string& fallback = "") const;
  // Each value of `flag` with the number of `anchor` flags given before it, so
  // that a flag can bind to the one it follows (compare's --abs-tol to its --metric).
  std::vector<std::pair<size_t, std::string>> after(const std::string& flag, const std::string& anchor) const;
  std::vector<std::string> argv;  // the whole command line, for the record

 private:
  friend struct ArgParser;
  std::map<std::string, std::vector<std::string>> flags_;
  std::vector<std::pair<std::string, std::string>> in_order_;  // every flag and value as given
  std::vector<std::string> positionals_;
};

// The value of an integer flag, `fallback` when it is absent. Anything else, or
// a value outside the flag's declared range (narrowed to [lo, hi] where another
// flag bounds it, as --nnodes bounds --node-rank), throws std::invalid_argument
// naming the flag, the range and what was found. A flag declared without a
// range is a programming error (std::logic_error).
long long integer_flag(const ParsedArgs& args, const std::string& flag, long long fallback,
                       long long lo = LLONG_MIN, long long hi = LLONG_MAX);

// What a command's handler needs. The front runner (`runner`) links no LibTorch
// and runs the Core commands itself, in milliseconds; a LibTorch command's whole
// command line it hands to the full runner, runner-torch (cli/full_runner.h).
enum class Needs { Core, LibTorch };

struct CommandSpec {
  std::string name;
  std::string summary;  // one line
  std::vector<PositionalSpec> positionals;
  std::vector<std::string> flags;  // names from flag_table()
  std::function<int(const ParsedArgs&)> handler;
  Needs needs = Needs::Core;
  bool last_positional_repeats = false;  // PATH... : the last positional takes any number >= 1
};

const std::vector<FlagSpec>& flag_table();
const std::vector<CommandSpec>& command_table();
const FlagSpec* find_flag(const std::string& name);
const CommandSpec* find_command(const std::string& name);

// Parses argv[first..] for `cmd`. On error returns false with a message that
// names the flag and the fix.
bool parse_command_args(const CommandSpec& cmd, const std::vector<std::string>& args,
                        ParsedArgs& out, std::string& error);

std::string command_help(const CommandSpec& cmd);
std::string general_help();

}  // namespace runner
