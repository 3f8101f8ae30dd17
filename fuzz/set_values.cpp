// `--set KEY=VALUE` flags: each input line is one flag's value, applied in
// order to a small valid recipe, as `runner validate base.toml --set ...` does.
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include <vector>

namespace runner::fuzz {
namespace {

// Every section present, so overrides of most keys land on real options.
constexpr std::string_view kBase = R"([run]
name = "fuzz"
seed = 7
[data]
dataset = "glue/mrpc"
max_length = 64
train_batch_size = 16
[tokenizer]
type = "wordpiece"
[model]
type = "bert"
preset = "bert-tiny"
[optimizer]
type = "adamw"
lr = 1e-3
[scheduler]
type = "linear"
warmup_steps = 4
[train]
epochs = 2
)";

}  // namespace

void set_values(std::string_view bytes) {
  static const std::string base = write_scratch("set_base.toml", kBase);
  std::vector<std::string> sets;
  size_t start = 0;
  while (start <= bytes.size() && sets.size() < 64) {
    size_t end = bytes.find('\n', start);
    if (end == std::string_view::npos) end = bytes.size();
    sets.emplace_back(bytes.substr(start, end - start));
    start = end + 1;
  }
  validate_recipe(base, sets);
}

}  // namespace runner::fuzz
