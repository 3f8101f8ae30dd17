#include "fuzz_targets.h"

namespace runner::fuzz {

const std::vector<Target>& targets() {
  static const std::vector<Target> list = {
      {"recipe_toml", recipe_toml, "a .toml recipe through load_recipe (runner validate)"},
      {"recipe_yaml", recipe_yaml, "a .yaml recipe through load_recipe (runner validate)"},
      {"recipe_nesting", recipe_nesting,
       "a TOML or YAML recipe nested as deep as the input says (up to 65,535 levels) through load_recipe"},
      {"set_values", set_values, "--set KEY=VALUE lines on a fixed recipe through load_recipe"},
      {"sweep_file", sweep_file, "a sweep file through load_sweep_file and expand_sweep"},
      {"jsonl_input", jsonl_input, "JSONL lines for runner tokenize and the jsonl dataset"},
      {"table_rows", table_rows, "TSV/CSV rows for the tsv, csv and GLUE datasets"},
      {"vocab_txt", vocab_txt, "vocab.txt through load_wordpiece, then one encode"},
      {"tokenizer_json", tokenizer_json, "tokenizer.json through load_wordpiece, then one encode"},
      {"safetensors", safetensors, "model.safetensors through read_weights"},
      {"pytorch_bin", pytorch_bin, "pytorch_model.bin (zip + pickle) through read_weights"},
      {"checkpoint_manifest", checkpoint_manifest,
       "a checkpoint directory name and manifest.json through newest_valid_checkpoint"},
      {"config_json", config_json, "a model folder's config.json through the family config readers"},
      {"tokenizer_pipeline", tokenizer_pipeline,
       "tokenizer.json (any pipeline) through load_tokenizer, then the NUL-separated texts after it encoded"},
      {"model_shape_bert", model_shape_bert, "config.json through the bert component's check: ranges, shape, memory"},
      {"model_shape_roberta", model_shape_roberta, "config.json through the roberta component's check"},
      {"model_shape_distilbert", model_shape_distilbert, "config.json through the distilbert component's check"},
      {"model_shape_electra", model_shape_electra, "config.json through the electra component's check"},
      {"model_shape_deberta", model_shape_deberta, "config.json through the deberta-v2 component's check"},
      {"model_shape_modernbert", model_shape_modernbert, "config.json through the modernbert component's check"},
      {"run_dirs", run_dirs, "a run directory's records and a sweep summary through runner ls and runner report"},
      {"hf_cache_layout", hf_cache_layout,
       "refs, blobs, snapshot links and .no_exist of a Hugging Face cache, resolved offline"},
      {"mlflow_answer", mlflow_answer, "an MLflow tracking server's answer (status and body) through read_answer"},
  };
  return list;
}

const Target* find_target(std::string_view name) {
  for (const auto& t : targets())
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace runner::fuzz
