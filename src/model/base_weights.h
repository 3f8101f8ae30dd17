// A LoRA run over pretrained weights saves only what trains: the adapters and
// the parameters trained whole. Its weight file names the frozen weights it was
// trained over by one sha256, kept in the file's safetensors metadata, and
// whatever reads the file back rebuilds the frozen part from model.pretrained
// and checks that digest first, so adapters never land on other base weights.
// Buffers (position ids, rotary tables) are neither saved nor hashed: the
// config rebuilds them.
#pragma once

#include "model/checkpoint.h"

#include <string>

namespace runner {

// The safetensors metadata key of that digest.
inline constexpr const char* kBaseWeightsKey = "base_weights_sha256";

// sha256 over every frozen parameter (requires_grad false) as its name, shape
// and float32 bytes, in name order; "" when every parameter trains.
std::string frozen_weights_sha256(torch::nn::Module& model);

// The digest a weight file (a .safetensors file, or a folder's model.safetensors)
// carries; "" when it holds the whole model (or is no safetensors file).
std::string saved_base_digest(const std::string& file_or_folder);

// Loads a run's weight file into `model`, built as the run built it (its
// pretrained weights and adapters). A file that carries a digest holds only
// the trainable parameters: the model's frozen weights must give that digest
// (else an InputError naming the file), and the report lists as missing only
// trainable parameters the file lacks. A file without one loads as
// load_state_dict loads it.
LoadReport load_run_weights(torch::nn::Module& model, const std::string& file_or_folder);

}  // namespace runner
