// The model kind: what the trainer, predict and export see of a model.
// A model is a torch::nn::Module whose named_parameters() are exactly the
// Hugging Face state-dict keys, in Hugging Face order.
#pragma once

#include "model/bert_config.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace runner {

// One batch, every tensor [B, L] int64 except labels [B] (int64 class ids, or
// float targets when num_labels == 1). Undefined labels: no loss.
struct ModelBatch {
  torch::Tensor input_ids, token_type_ids, attention_mask, labels;
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
};

// Padded: every op on [B, L, H] exactly as Hugging Face computes it.
// Unpadded: embeddings, Linear, LayerNorm and GELU on the packed non-padding
// tokens [T, H]; only attention runs padded. Equal to Padded within ~1e-5.
enum class Execution { Padded, Unpadded };

class SequenceClassifier : public torch::nn::Module {
 public:
  virtual ModelOutput forward(const ModelBatch& batch, const ForwardOptions& options = {}) = 0;
  // The config.json that a saved folder carries (architectures, id2label, torch_dtype ...).
  virtual nlohmann::json hf_config() const = 0;
  virtual long long num_labels() const = 0;
  virtual void set_execution(Execution e) = 0;
  virtual Execution execution() const = 0;
};

// What the dataset tells the model.
struct ModelContext {
  long long num_labels = 2;               // 1 = regression (MSE)
  std::vector<std::string> label_names;   // id -> name; may be empty
};

// options: the resolved [model] section (model.type = "bert" and its options).
using ModelFactory = std::function<std::shared_ptr<SequenceClassifier>(
    const nlohmann::json& options, const ModelContext& context)>;

// Builds the model a resolved [model] section describes, through the registry.
std::shared_ptr<SequenceClassifier> make_model(const nlohmann::json& model_section,
                                               const ModelContext& context);

}  // namespace runner
