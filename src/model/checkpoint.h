// Hugging Face weight files in and out: model.safetensors (also sharded with
// model.safetensors.index.json), pytorch_model.bin (torch.save zip format, also
// sharded), and save_pretrained-style folders.
#pragma once

#include "model/model.h"

#include <string>
#include <utility>
#include <vector>

namespace runner {

// Checkpoint tensors in file order. They view the memory-mapped file (kept
// mapped while any tensor lives) in the file's own dtype.
using StateDict = std::vector<std::pair<std::string, torch::Tensor>>;

StateDict read_safetensors_weights(const std::string& file);
StateDict read_pytorch_bin_weights(const std::string& file);
// A weight file (by its extension, .safetensors / .bin / .index.json) or a model
// folder, searched as Hugging Face does, in hub::weight_file_names()'s order.
StateDict read_weights(const std::string& file_or_folder);
std::string find_weights_file(const std::string& folder);  // throws InputError if none

struct LoadReport {
  std::string source;
  std::vector<std::string> missing;     // model parameters the checkpoint lacked
  std::vector<std::string> unexpected;  // checkpoint keys the model has no use for
  std::vector<std::string> renamed;     // "old -> new" (gamma/beta, missing base-model prefix)
  std::string warning() const;          // one message listing the above; empty if nothing
  // Weights that must be trained ones (export, evaluate, the best checkpoint
  // reloaded), never a fresh initialisation: an InputError naming `source` and
  // every missing parameter, with `hint`, when any is missing.
  void require_complete(const std::string& hint) const;
};

// Copies the checkpoint into the model's parameters (converting F16/BF16 to the
// parameter dtype). Maps legacy LayerNorm gamma/beta names and adds the "bert."
// prefix of a bare base-model checkpoint (BertModel: "bert."); Hugging Face's
// embeddings buffers (position_ids) are skipped, as transformers skips them. A shape mismatch throws InputError naming
// the key and both shapes. Missing parameters are left untouched (the caller
// initialises them) and reported.
LoadReport load_state_dict(torch::nn::Module& model, const StateDict& state,
                           const std::string& source);

// Writes DIR/config.json and DIR/model.safetensors (float32, Hugging Face names),
// creating DIR. Tensors are written atomically (temp file + rename).
void save_pretrained(TaskModel& model, const std::string& dir);

}  // namespace runner
