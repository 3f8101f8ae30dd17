// Names that users bring from Hugging Face's Trainer (TrainingArguments, the
// run_glue example's arguments) and Accelerate, and the runner key each one
// corresponds to: an unknown recipe key or --set key that is one of them gets
// that key, with the user's own value, as its hint. This table is the one place
// those names live; a test checks that every runner key in it exists and that
// every hint, applied, gives a valid recipe.
#pragma once

#include "recipe/value.h"

#include <optional>
#include <string>
#include <vector>

namespace runner {

// How the user's value of a foreign name becomes the runner option's value.
enum class ValueMapping {
  Same,            // as given: learning_rate = 3e-5 -> lr = 3e-5
  Steps,           // a whole number of steps as given; the Trainer's fractions (0.1 = a tenth of training) are not
  PrecisionFlag,   // fp16 = true -> precision = "fp16"; false -> "fp32"
  MixedPrecision,  // Accelerate's "no" / "fp16" / "bf16" -> "fp32" / "fp16" / "bf16"
  MetricName,      // "f1", "eval_f1" -> "eval.f1"
  GlueTask,        // "mrpc" -> "glue/mrpc"
  FirstBeta,       // adam_beta1 = 0.8 -> betas = [0.8, 0.999]
  SecondBeta,      // adam_beta2 = 0.98 -> betas = [0.9, 0.98]
  OptimizerName,   // "adamw_torch" -> "adamw"
  CpuFlag,         // use_cpu = true -> device = "cpu"; false -> "auto"
  FlagAsChoice,    // do_lower_case = false -> lowercase = "false" (a choice beside "auto")
  LoggerList,      // report_to = "tensorboard" -> loggers = ["console", "jsonl", "tensorboard"]
  EvalStrategy,    // eval_strategy = "epoch" -> eval_each_epoch = true; "steps" or "no" -> false
  SaveStrategy,    // save_strategy = "steps" or "no" -> checkpoint_every_minutes = 0 (no timed ones)
  SquadVersion,    // version_2_with_negative = true -> version = "2.0"; false -> "1.1"
};

struct ForeignName {
  std::string name;        // "learning_rate"
  std::string from;        // "Trainer", "Accelerate", "PEFT", "run_qa.py" or "run_ner.py"
  std::string runner_key;  // "optimizer.lr"
  std::string example;     // the runner's value as a recipe writes it, for a value that does not convert
  ValueMapping mapping = ValueMapping::Same;
};

const std::vector<ForeignName>& foreign_names();
const ForeignName* find_foreign_name(const std::string& name);

// The runner option's value for the user's `given` value of `f`, as a recipe
// holds it; nullopt when it does not convert (adafactor, eval_steps = 0.1).
std::optional<nlohmann::ordered_json> runner_value(const ForeignName& f, const Value& given);

// `Hugging Face's "learning_rate" (Trainer) is optimizer.lr here: write lr =
// 3e-05 under [optimizer], or --set optimizer.lr=3e-05`, with the user's value
// where it converts (`given`, may be null), else the table's example; "" when
// `name` is not a foreign name.
std::string foreign_name_hint(const std::string& name, const Value* given);

// The hint for a key that is the runner's own option in another section
// (`lr` at the top level, `warmup_ratio` under [optimizer]): the same shape,
// `"lr" is optimizer.lr here: ...`; "" when no one section has an option of
// that name.
std::string misplaced_option_hint(const std::string& name, const Value* given);

// The first of the two hints above that applies; "" when neither does. A
// key at `path` ("data.doc_stride") that is the runner's own name there, but
// not an option of the component the section picked (a GLUE dataset), is
// answered with the components that have it.
std::string unknown_key_hint(const std::string& name, const Value* given, const std::string& path = "");

// A --set value as the recipe key would hold it: TOML when it parses as a
// TOML value ("3e-5", "true", "[1, 2]"), else the text as a string ("f1").
Value set_text_value(const std::string& text);

}  // namespace runner
