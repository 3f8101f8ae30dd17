// The model kind: what the trainer, predict and export see of a model.
// A model is a torch::nn::Module whose named_parameters() are exactly the
// Hugging Face state-dict keys, in Hugging Face order.
#pragma once

#include "model/model_context.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace runner {

// The real tokens of a right-padded batch, for unpadded execution.
struct PackedTokens {
  torch::Tensor token_index;  // [T] flat positions of the real tokens in B*L, ascending
  torch::Tensor first_token;  // [B] each row's first token (column 0) among the T
};

// One batch, every tensor [B, L] int64 except labels: [B] int64 class ids, [B, 1]
// float targets for a regression, or [B, num_labels] float 0/1 targets for
// multi-label. Undefined labels: no loss.
struct ModelBatch {
  torch::Tensor input_ids, token_type_ids, attention_mask, labels;
  // Set by whoever built the batch on the host from its rows' lengths, and only
  // when every row starts with a real token (train/split_batch_source.cpp): the
  // model then chooses the unpadded path and packs its tokens without reading
  // the mask back from the device (a wait for the GPU). Absent: derived from
  // attention_mask, with a read.
  std::optional<PackedTokens> packed;
};

struct ModelOutput {
  torch::Tensor logits;  // [B, num_labels] float32 (bf16 under autocast)
  torch::Tensor loss;    // scalar; undefined without labels
  // With output_hidden_states: the embeddings output and every layer's output,
  // each [B, L, H] (padded positions included, as Hugging Face returns them).
  std::vector<torch::Tensor> hidden_states;
  torch::Tensor pooled;  // [B, H] pooler output
};

struct ForwardOptions {
  bool output_hidden_states = false;
  // Cross-entropy against targets that are (1 - e) one-hot + e uniform, as
  // torch's cross_entropy(label_smoothing=e) and Transformers' LabelSmoother
  // compute it; classification only.
  double label_smoothing = 0.0;
  // Defined: one weight per class for cross-entropy, or BCE's pos_weight per
  // label for multi-label (train.class_weights); training only.
  torch::Tensor class_weights;
};

// Padded: every op on [B, L, H] exactly as Hugging Face computes it.
// Unpadded: embeddings, Linear, LayerNorm and GELU on the packed non-padding
// tokens [T, H], attention sequence by sequence on them (on a GPU through
// LibTorch's variable-length kernels where they apply, else padded). Equal to
// Padded within ~1e-5 in fp32.
enum class Execution { Padded, Unpadded };

// A model for one task: what the trainer, predict and export hold. The
// built-in families are an encoder with a task head (model/encoder_with_head.h).
class TaskModel : public torch::nn::Module {
 public:
  virtual ModelOutput forward(const ModelBatch& batch, const ForwardOptions& options = {}) = 0;
  // The config.json that a saved folder carries (architectures, id2label, torch_dtype ...).
  virtual nlohmann::json hf_config() const = 0;
  virtual long long num_labels() const = 0;
  virtual void set_execution(Execution e) = 0;
  virtual Execution execution() const = 0;
  // Hugging Face's _init_weights over named_parameters(), in that order; with
  // `only` non-empty, just those parameters (the keys a checkpoint lacked).
  virtual void init_weights(const std::vector<std::string>& only = {}) = 0;
  // DistilBERT has no token types: its forward ignores batch.token_type_ids.
  virtual bool uses_token_type_ids() const { return true; }
  // The id2label name of class `id` ("LABEL_<id>" when the config has none).
  virtual std::string label_name(long long id) const;
  // model.gradient_checkpointing: in training, each encoder layer keeps only its
  // input and is recomputed in the backward (model/layer_recompute.h). A model
  // without layers has nothing to recompute.
  virtual void set_gradient_checkpointing(bool) {}
  virtual bool gradient_checkpointing() const { return false; }
  // model.qa_loss_includes_padding: whether a loss over positions counts the
  // padding positions, as Transformers' question answering softmax does. Only
  // that head's loss reads padding; the others ignore this.
  virtual void set_loss_over_padding(bool) {}
};

// How the modules are initialised when they are built.
enum class Init {
  HuggingFace,  // transformers' init, drawn from the default generator in its order
  None,         // LibTorch's constructors only: weights to be loaded next
};

// One Hugging Face architecture (a model family): the Model kind's factory.
// Its ComponentSpec carries the config.json "model_type" it reads.
struct ModelFamily {
  // The config.json object of the model that a resolved [model] section
  // describes: `options.pretrained`'s config.json, or the preset, then the
  // recipe's overrides, then the dataset's labels (context.num_labels > 0).
  // Throws InputError for settings that do not fit together.
  std::function<nlohmann::json(const nlohmann::json& options, const ModelContext& context)> config;
  // The modules for a config.json object (validated, as InputError naming `where`).
  std::function<std::shared_ptr<TaskModel>(const nlohmann::json& hf_config, Init init,
                                                    const std::string& where)>
      construct;
};

}  // namespace runner
