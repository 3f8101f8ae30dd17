// What a recipe's name for a model, a tokenizer or a dataset folder (a GLUE
// task's, conll2003, squad, squad_v2) means, in the order
// docs/models-and-hub.md gives: an explicit path; the folder under its root
// ($RUNNER_MODELS, $RUNNER_DATA); the Hugging Face cache (the dataset cache for
// datasets); a download. Every answer is logged once per process for env.json.
#pragma once

#include "hub/repo_resolution.h"

#include <nlohmann/json.hpp>

#include <string>

namespace runner::hub {

enum class Fetchable { None, Model, Tokenizer, DatasetFolder };

struct NameRequest {
  Fetchable what = Fetchable::None;
  std::string text;         // as the recipe wrote it
  std::string local;        // the path it means under its root (or as written)
  std::string local_source; // "path", "models_root" or "data_root"
};

// The folder (or file) to use. When `local` does not exist and `text` is no
// Hub id or dataset name, `local` comes back for the caller to report. Errors of
// the Hub or of the downloads are InputError.
std::string locate(const NameRequest& request);

// Every resolution of this process, in order: env.json's "name_resolution".
nlohmann::json resolution_log();

}  // namespace runner::hub
