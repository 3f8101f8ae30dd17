// What `runner init` asks for, what it offers on this machine, and the
// commented recipe it writes from the answers.
#pragma once

#include "recipe/rules.h"
#include "wizard/pretrained_offers.h"

#include <string>
#include <vector>

namespace runner {

struct InitChoices {
  // A GLUE dataset component, "conll" (token classification) or "squad" (question answering).
  std::string task = "glue/mrpc";
  std::string data_dir;                 // conll, squad: the folder of the train and dev files
  std::string squad_dataset;            // squad: "squad_json" or "squad_jsonl", as the files are
  std::string squad_version = "1.1";    // squad: "2.0" when questions may have no answer
  std::string model_type = "bert";      // the model component
  std::string preset = "bert-mini";     // empty when `pretrained` is set
  std::string pretrained;               // a folder under the model root, a Hub id, or a path
  std::string precision = "fp32";
  long long batch_size = 32;            // per process
  double epochs = 3;                    // fractions allowed, as train.epochs
  long long processes = 1;
  std::string device = "auto";          // "auto", "cuda" or "cpu"
};

// The GLUE tasks the registry knows ("glue/mrpc", "glue/sst2", ...), then
// "conll": token classification (NER) from CoNLL files of one's own, and
// "squad": extractive question answering from SQuAD files of one's own.
std::vector<std::string> offered_tasks();
// "preset (type)" entries of every model component's presets, e.g. "bert-mini (bert)".
struct ModelOffer {
  std::string type, preset;
};
std::vector<ModelOffer> offered_models();
// fp32 always; bf16 on a CPU with native bf16 (AVX512-BF16, AMX) or on a GPU;
// fp16 on a GPU only (`device` is "auto", "cpu" or "cuda"; auto is the GPU when
// there is one).
std::vector<std::string> offered_precisions(const Capabilities& caps, const std::string& device);
// The answers of --defaults: MRPC, the first installed pretrained model (else
// the BERT-Mini preset), fp32, batch 32, 3 epochs, one process, device "auto"
// (the GPU when there is one).
InitChoices default_choices(const Capabilities& caps, const std::vector<PretrainedOffer>& installed);

// The recipe as commented TOML; `schema` is the path of the recipe schema as
// the recipe's folder sees it (for editors), or "" to leave the directive out.
std::string init_recipe_text(const InitChoices& c, const std::string& schema, const std::string& written_utc);

}  // namespace runner
