#include "cli/args.h"

#include "recipe/unsupported.h"
#include "util/numbers.h"
#include "util/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace runner {

std::string ParsedArgs::get(const std::string& flag, const std::string& fallback) const {
  auto it = flags_.find(flag);
  return it == flags_.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& ParsedArgs::all(const std::string& flag) const {
  static const std::vector<std::string> none;
  auto it = flags_.find(flag);
  return it == flags_.end() ? none : it->second;
}

std::string ParsedArgs::positional(size_t i, const std::string& fallback) const {
  return i < positionals_.size() ? positionals_[i] : fallback;
}

std::vector<std::pair<size_t, std::string>> ParsedArgs::after(const std::string& flag,
                                                              const std::string& anchor) const {
  std::vector<std::pair<size_t, std::string>> out;
  size_t anchors = 0;
  for (const auto& [name, value] : in_order_) {
    if (name == anchor) ++anchors;
    else if (name == flag) out.emplace_back(anchors, value);
  }
  return out;
}

const FlagSpec* find_flag(const std::string& name) {
  for (const auto& f : flag_table())
    if (f.name == name) return &f;
  return nullptr;
}

const CommandSpec* find_command(const std::string& name) {
  for (const auto& c : command_table())
    if (c.name == name) return &c;
  return nullptr;
}

namespace {

bool command_has_flag(const CommandSpec& cmd, const std::string& name) {
  return std::find(cmd.flags.begin(), cmd.flags.end(), name) != cmd.flags.end();
}

// The flag `name` stands for: torchrun writes the runner's flags with
// underscores (--nproc_per_node, --master_port), and Accelerate has names of
// its own (--num_processes, --main_process_port); both are taken as the
// runner's flag. Any other name comes back as it is.
std::string runner_flag_spelling(const std::string& name, const CommandSpec& cmd) {
  static const std::vector<std::pair<std::string, std::string>> accelerate = {
      {"--num_processes", "--nproc-per-node"}, {"--num_machines", "--nnodes"},
      {"--machine_rank", "--node-rank"},       {"--main_process_ip", "--master-addr"},
      {"--main_process_port", "--master-port"},
  };
  for (const auto& [theirs, ours] : accelerate)
    if (name == theirs && command_has_flag(cmd, ours)) return ours;
  std::string dashed = name;
  std::replace(dashed.begin() + std::min<size_t>(2, dashed.size()), dashed.end(), '_', '-');
  return command_has_flag(cmd, dashed) ? dashed : name;
}

}  // namespace

struct ArgParser {
  const CommandSpec& cmd;
  ParsedArgs& out;
  std::string& error;

  bool unknown_flag(const std::string& name, const std::string& unsupported = "") {
    std::vector<std::string> known = cmd.flags;
    known.push_back("--help");
    std::string hint = unsupported.empty() ? did_you_mean(name, known) : unsupported;
    error = fmt::format("unknown flag {} for `runner {}`{}", name, cmd.name,
                        hint.empty() ? "; known flags: " + join(known) : "; " + hint);
    return false;
  }

  bool flag(const std::vector<std::string>& args, size_t& i) {
    std::string name = args[i], value;
    bool inline_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    name = runner_flag_spelling(name, cmd);
    bool allowed = command_has_flag(cmd, name);
    const FlagSpec* spec = find_flag(name);
    if (!allowed || !spec) {
      // `export --format onnx`: the value may name what is not supported.
      const std::string next = inline_value ? value : (i + 1 < args.size() ? args[i + 1] : "");
      if (auto missing = unsupported_feature(name)) return unknown_flag(name, *missing);
      if (auto missing = unsupported_feature(next)) return unknown_flag(name, *missing);
      return unknown_flag(name);
    }
    if (spec->takes_rest) return rest(spec->name, args, i, inline_value ? std::optional<std::string>(value) : std::nullopt);
    if (spec->metavar.empty()) {
      if (inline_value) {
        error = fmt::format("flag {} takes no value (found \"{}\")", name, value);
        return false;
      }
    } else if (!inline_value) {
      if (i + 1 >= args.size()) {
        error = fmt::format("flag {} needs a value: {} {}", name, name, spec->metavar);
        return false;
      }
      value = args[++i];
    }
    auto& values = out.flags_[name];
    if (!values.empty() && !spec->repeatable) {
      error = fmt::format("flag {} was given twice; it takes one value", name);
      return false;
    }
    values.push_back(value);
    out.in_order_.emplace_back(name, value);
    return true;
  }

  // A flag that hands the rest of the command line to another tool.
  bool rest(const std::string& name, const std::vector<std::string>& args, size_t& i,
            const std::optional<std::string>& inline_value) {
    auto& values = out.flags_[name];
    if (inline_value) values.push_back(*inline_value);
    for (++i; i < args.size(); ++i) values.push_back(args[i]);
    return true;
  }

  bool parse(const std::vector<std::string>& args) {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--") {
        for (++i; i < args.size(); ++i) out.positionals_.push_back(args[i]);
        break;
      }
      if (a.size() > 1 && a[0] == '-') {
        if (!flag(args, i)) return false;
      } else {
        out.positionals_.push_back(a);
      }
    }
    return check_positionals();
  }

  bool check_positionals() {
    size_t required = 0;
    for (const auto& p : cmd.positionals) required += p.required;
    if (out.positionals_.size() < required) {
      error = fmt::format("`runner {}` needs {} (got {} argument{})", cmd.name,
                          cmd.positionals[out.positionals_.size()].name, out.positionals_.size(),
                          out.positionals_.size() == 1 ? "" : "s");
      return false;
    }
    if (out.positionals_.size() > cmd.positionals.size() && !cmd.last_positional_repeats) {
      error = fmt::format("unexpected argument \"{}\" for `runner {}`",
                          out.positionals_[cmd.positionals.size()], cmd.name);
      return false;
    }
    return true;
  }
};

bool parse_command_args(const CommandSpec& cmd, const std::vector<std::string>& args,
                        ParsedArgs& out, std::string& error) {
  ArgParser parser{cmd, out, error};
  return parser.parse(args);
}

static std::string usage_line(const CommandSpec& cmd) {
  std::string s = "usage: runner " + cmd.name;
  for (const auto& p : cmd.positionals) s += p.required ? " " + p.name : " [" + p.name + "]";
  if (cmd.last_positional_repeats) s += "...";
  for (const auto& name : cmd.flags) {
    const FlagSpec* f = find_flag(name);
    std::string one = f->metavar.empty() ? f->name : f->name + " " + f->metavar;
    s += " [" + one + "]" + (f->repeatable ? "..." : "");
  }
  return s;
}

std::string command_help(const CommandSpec& cmd) {
  std::string s = usage_line(cmd) + "\n\n" + cmd.summary + "\n";
  if (!cmd.positionals.empty()) {
    s += "\narguments:\n";
    for (const auto& p : cmd.positionals) s += fmt::format("  {:<22} {}\n", p.name, p.help);
  }
  s += "\nflags:\n";
  for (const auto& name : cmd.flags) {
    const FlagSpec* f = find_flag(name);
    std::string left = f->metavar.empty() ? f->name : f->name + " " + f->metavar;
    if (left.size() > 22) left += "\n" + std::string(25, ' ');
    std::string range = f->integer ? fmt::format(" (an integer in [{}, {}])", f->integer->lo,
                                                 f->integer->hi)
                                   : "";
    s += fmt::format("  {:<22} {}{}{}\n", left, f->help, range, f->repeatable ? " (repeatable)" : "");
  }
  s += fmt::format("  {:<22} {}\n", "-h, --help", "Show this help");
  return s;
}

std::string general_help() {
  std::string s =
      "runner: fine-tune Transformer encoders from declarative TOML/YAML recipes\n\n"
      "usage: runner COMMAND [ARGS...]\n"
      "       runner RECIPE [--set KEY=VALUE]...   (the same as `runner run RECIPE`)\n\ncommands:\n";
  for (const auto& c : command_table()) s += fmt::format("  {:<14} {}\n", c.name, c.summary);
  s += "\nglobal flags:\n  -h, --help     Show help (after a command: that command's help)\n"
       "  --version      Show the runner version, git commit and LibTorch version\n"
       "\nRun `runner COMMAND --help` for a command's arguments and flags.\n";
  return s;
}

long long integer_flag(const ParsedArgs& args, const std::string& flag, long long fallback,
                       long long lo, long long hi) {
  const FlagSpec* spec = find_flag(flag);
  if (!spec || !spec->integer) throw std::logic_error(flag + " is not declared as an integer flag");
  if (!args.has(flag)) return fallback;
  lo = std::max(lo, spec->integer->lo);
  hi = std::min(hi, spec->integer->hi);
  std::string why;
  if (auto v = parse_integer(args.get(flag), why, lo, hi)) return *v;
  throw std::invalid_argument(flag + ": " + why);
}

}  // namespace runner
