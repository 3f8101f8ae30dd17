#include "recipe/sections.h"

namespace runner {

SectionSpec data_section() {
  SectionSpec s;
  s.name = "data";
  s.doc = "The dataset component and how its examples are encoded and batched";
  s.component_kind = Kind::Dataset;
  s.selector_key = "dataset";
  s.default_component = "glue/mrpc";
  s.options = {
      opt::text("train_split", "train", "Split used for training"),
      opt::text("eval_split", "dev", "Split used for evaluation"),
      opt::integer("max_length", 128, "Maximum tokens per example, special tokens included")
          .at_least(4)
          .at_most(8192),
      opt::choice("truncation", {"longest_first", "only_first", "only_second"},
                  "longest_first", "How pairs are cut down to max_length"),
      opt::choice("padding", {"dynamic", "max_length"}, "dynamic",
                  "Pad to the longest in the batch, or always to max_length"),
      opt::integer("pad_to_multiple_of", 0, "With dynamic padding, round lengths up to this")
          .at_least(0),
      opt::integer("train_batch_size", 32, "Examples per training micro-batch (per process)")
          .at_least(1),
      opt::integer("eval_batch_size", 64, "Examples per evaluation batch (per process)")
          .at_least(1),
      opt::choice("sampler", {"random", "sequential", "group_by_length"}, "random",
                  "Order of training examples"),
      opt::integer("max_train_examples", 0, "Use only the first N training examples; 0 = all")
          .at_least(0),
      opt::integer("max_eval_examples", 0, "Use only the first N evaluation examples; 0 = all")
          .at_least(0),
      opt::choice("on_bad_row", {"error", "skip"}, "error",
                  "A malformed data row stops the run, or is skipped and reported in the log"),
      opt::text("cache_dir", "",
                "Token cache directory; empty means $RUNNER_CACHE or ~/.cache/runner"),
  };
  return s;
}

SectionSpec tokenizer_section() {
  SectionSpec s;
  s.name = "tokenizer";
  s.doc = "The tokenizer component that turns text into token ids";
  s.component_kind = Kind::Tokenizer;
  s.selector_key = "type";
  s.default_component = "wordpiece";
  return s;
}

}  // namespace runner
