#include "data/data_options.h"

#include "recipe/sections.h"

namespace runner {
namespace {

OptionBinding<DataSettings> declare_data_options() {
  using D = DataSettings;
  OptionBinding<D> b;
  b.bind(opt::text("train_split", "train", "Split used for training"), &D::train_split);
  b.bind(opt::text("eval_split", "dev", "Split used for evaluation"), &D::eval_split);
  b.bind(opt::integer("max_length", 128, "Maximum tokens per example, special tokens included")
             .at_least(4)
             .at_most(8192),
         &D::max_length);
  b.bind_choice(opt::choice("truncation", {}, "longest_first", "How pairs are cut down to max_length"),
                &D::truncation,
                {{"longest_first", Truncation::LongestFirst},
                 {"only_first", Truncation::OnlyFirst},
                 {"only_second", Truncation::OnlySecond}});
  b.bind_choice(opt::choice("padding", {}, "dynamic",
                            "Pad to the longest in the batch, or always to max_length"),
                &D::padding, {{"dynamic", PaddingMode::Dynamic}, {"max_length", PaddingMode::MaxLength}});
  b.bind(opt::integer("pad_to_multiple_of", 0, "With dynamic padding, round lengths up to this")
             .at_least(0),
         &D::pad_to_multiple_of);
  b.bind(opt::integer("train_batch_size", 32, "Examples per training micro-batch (per process)")
             .at_least(1),
         &D::train_batch_size);
  b.bind(opt::integer("eval_batch_size", 64, "Examples per evaluation batch (per process)")
             .at_least(1),
         &D::eval_batch_size);
  b.bind_choice(opt::choice("sampler", {}, "random", "Order of training examples"), &D::sampler,
                {{"random", SamplerKind::Random},
                 {"sequential", SamplerKind::Sequential},
                 {"group_by_length", SamplerKind::GroupByLength}});
  b.bind(opt::integer("max_train_examples", 0, "Use only the first N training examples; 0 = all")
             .at_least(0),
         &D::max_train_examples);
  b.bind(opt::integer("max_eval_examples", 0, "Use only the first N evaluation examples; 0 = all")
             .at_least(0),
         &D::max_eval_examples);
  b.bind_choice(opt::choice("on_bad_row", {}, "error",
                            "A malformed data row stops the run, or is skipped and reported in the log"),
                &D::on_bad_row, {{"error", BadRowPolicy::Error}, {"skip", BadRowPolicy::Skip}});
  b.bind(opt::text("cache_dir", "", "Token cache directory; empty means $RUNNER_CACHE or ~/.cache/runner"),
         &D::cache_dir);
  return b;
}

}  // namespace

const OptionBinding<DataSettings>& data_options() {
  static const OptionBinding<DataSettings> options = declare_data_options();
  return options;
}

DataSettings data_settings_from(const nlohmann::json& data_section) {
  return data_options().decode(data_section);
}

SectionSpec data_section() {
  SectionSpec s;
  s.name = "data";
  s.doc = "The dataset component and how its examples are encoded and batched";
  s.component_kind = Kind::Dataset;
  s.selector_key = "dataset";
  s.default_component = "glue/mrpc";
  s.options = data_options().specs();
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
