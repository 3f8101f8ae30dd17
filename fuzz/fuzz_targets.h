// The fuzz targets, one per file a user can hand the runner. Each feeds its
// bytes to the same entry point the CLI uses and returns normally when the
// input is accepted or refused the project's way (diagnostics, InputError);
// anything else escapes (see fuzz_support.h). tests/fuzz replays the saved
// crashing inputs through this table, fuzz_main.cpp drives it under libFuzzer.
#pragma once

#include <string_view>
#include <vector>

namespace runner::fuzz {

using TargetFn = void (*)(std::string_view bytes);

struct Target {
  const char* name;  // also the folder of its inputs under tests/fuzz/
  TargetFn run;
  const char* doc;
};

void recipe_toml(std::string_view bytes);
void recipe_yaml(std::string_view bytes);
void recipe_nesting(std::string_view bytes);
void set_values(std::string_view bytes);
void sweep_file(std::string_view bytes);
void jsonl_input(std::string_view bytes);
void table_rows(std::string_view bytes);
void vocab_txt(std::string_view bytes);
void tokenizer_json(std::string_view bytes);
void safetensors(std::string_view bytes);
void pytorch_bin(std::string_view bytes);
void checkpoint_manifest(std::string_view bytes);
void config_json(std::string_view bytes);
void tokenizer_pipeline(std::string_view bytes);
void model_shape_bert(std::string_view bytes);
void model_shape_roberta(std::string_view bytes);
void model_shape_distilbert(std::string_view bytes);
void model_shape_electra(std::string_view bytes);
void model_shape_deberta(std::string_view bytes);
void model_shape_modernbert(std::string_view bytes);
void run_dirs(std::string_view bytes);
void hf_cache_layout(std::string_view bytes);
void mlflow_answer(std::string_view bytes);

const std::vector<Target>& targets();
const Target* find_target(std::string_view name);  // nullptr when unknown

}  // namespace runner::fuzz
