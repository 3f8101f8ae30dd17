// DebertaV2Model: embeddings and the encoder with its relative table; and
// DebertaV2ForSequenceClassification's ContextPooler head (model/deberta_v2.h).
#include "model/deberta_v2.h"

#include "model/encoder_ops.h"
#include "model/lora.h"

namespace runner {
namespace {

torch::nn::LayerNorm deberta_layer_norm(const BertConfig& c) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden_size}).eps(c.layer_norm_eps));
}

}  // namespace

DebertaV2Model::DebertaV2Model(const DebertaV2Config& c) : Encoder("DebertaV2Model"), config_(c) {
  const BertConfig& e = config_.encoder;
  // Registration order is Hugging Face's module order, hence its parameter order.
  auto embeddings = register_module("embeddings", std::make_shared<torch::nn::Module>("DebertaV2Embeddings"));
  word_embeddings_ = embeddings->register_module(
      "word_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(e.vocab_size, e.hidden_size).padding_idx(e.pad_token_id)));
  if (config_.position_biased_input)
    position_embeddings_ = embeddings->register_module(
        "position_embeddings", torch::nn::Embedding(e.max_position_embeddings, e.hidden_size));
  if (e.type_vocab_size > 0)
    token_type_embeddings_ = embeddings->register_module(
        "token_type_embeddings", torch::nn::Embedding(e.type_vocab_size, e.hidden_size));
  embeddings_norm_ = embeddings->register_module("LayerNorm", deberta_layer_norm(e));
  auto encoder = register_module("encoder", std::make_shared<torch::nn::Module>("DebertaV2Encoder"));
  layers_ = encoder->register_module("layer", torch::nn::ModuleList());
  for (long long i = 0; i < e.num_hidden_layers; ++i) layers_->push_back(std::make_shared<DebertaV2Layer>(config_));
  if (!config_.relative_attention) return;
  rel_embeddings_ =
      encoder->register_module("rel_embeddings", torch::nn::Embedding(2 * config_.relative_span(), e.hidden_size));
  if (config_.norm_rel_ebd) rel_norm_ = encoder->register_module("LayerNorm", deberta_layer_norm(e));
}

DebertaV2ForSequenceClassification::DebertaV2ForSequenceClassification(DebertaV2Config config, Init init)
    : config_(std::move(config)) {
  validate_deberta_v2_config(config_, "model config");
  attach_encoder("deberta", std::make_shared<DebertaV2Model>(config_))->keep_first_tokens_only(true);  // [CLS] only
  auto pooler = register_module("pooler", std::make_shared<torch::nn::Module>("ContextPooler"));
  pooler_ = pooler->register_module("dense", torch::nn::Linear(config_.pooler_size(), config_.pooler_size()));
  classifier_ = register_module("classifier", torch::nn::Linear(config_.pooler_size(), config_.encoder.num_labels));
  if (init == Init::HuggingFace) init_weights();
}

void DebertaV2ForSequenceClassification::init_weights(const std::vector<std::string>& only) {
  hf_init_leaves(*this, config_.encoder.initializer_range, only);
}

// Word (+ absolute position) (+ token type) embeddings, LayerNorm, then the
// padding's rows zeroed, as DebertaV2Embeddings multiplies by the mask.
torch::Tensor DebertaV2Model::embed(const ModelBatch& b) {
  auto x = word_embeddings_(b.input_ids);
  if (position_embeddings_)
    x = x + position_embeddings_(torch::arange(b.input_ids.size(1), b.input_ids.options()).unsqueeze(0));
  if (token_type_embeddings_) x = x + token_type_embeddings_(b.token_type_ids);
  x = embeddings_norm_(x) * b.attention_mask.unsqueeze(2).to(x.scalar_type());
  return train_dropout(x, config_.encoder.hidden_dropout_prob, is_training());
}

// The same for the real tokens alone [T, H]; the mask's product is 1 there.
torch::Tensor DebertaV2Model::embed_unpadded(const ModelBatch& b, const torch::Tensor& token_index) {
  auto x = word_embeddings_(b.input_ids.reshape({-1}).index_select(0, token_index));
  if (position_embeddings_) x = x + position_embeddings_(torch::remainder(token_index, b.input_ids.size(1)));
  if (token_type_embeddings_) x = x + token_type_embeddings_(b.token_type_ids.reshape({-1}).index_select(0, token_index));
  return train_dropout(embeddings_norm_(x), config_.encoder.hidden_dropout_prob, is_training());
}

RelativeAttentionInputs DebertaV2Model::attention_inputs(const ModelBatch& b) {
  RelativeAttentionInputs in;
  auto m = b.attention_mask.to(torch::kBool);
  in.mask = (m.unsqueeze(1).unsqueeze(2) & m.unsqueeze(1).unsqueeze(3));  // query and key both real
  if (!config_.relative_attention) return in;
  // Its reach is read on the CPU, without waiting for a device; on a device the
  // table is made there (no copy from the host inside a captured graph).
  const int64_t length = b.input_ids.size(1);
  auto rel = deberta_relative_positions(length, config_.position_buckets, config_.max_relative(), torch::kCPU);
  in.reach = rel.numel() > 0 ? rel.abs().max().item<int64_t>() : 0;
  in.relative_pos = b.input_ids.device().is_cpu()
                        ? rel
                        : deberta_relative_positions(length, config_.position_buckets, config_.max_relative(),
                                                     b.input_ids.device());
  return in;  // the relative table is normalised by each layer's call (forward)
}

// What the packed kernel reads besides the tokens: the sequences, and the
// relative positions as rows of the projected table.
void DebertaV2Model::packed_inputs(RelativeAttentionInputs& in) const {
  in.sequences = packed_sequences(in.token_index, in.batch, in.length);
  if (!config_.relative_attention) return;
  const int64_t span = config_.relative_span();
  in.index_tables = relative_index_tables(in.relative_pos, span, in.first_row(span), config_.c2p, config_.p2c);
}

// The layers over h ([B, L, H], or [T, H] unpadded); the hidden states after each when asked.
torch::Tensor DebertaV2Model::encode(torch::Tensor h, const RelativeAttentionInputs& in, const PackedTokens* packed,
                                     std::vector<torch::Tensor>* hidden_states) {
  if (hidden_states) hidden_states->push_back(h);
  // Each layer's call normalises the relative table itself, so that a layer
  // recomputed in the backward (gradient checkpointing), whose graph starts at
  // its input, still back-propagates into the table and its LayerNorm; one
  // normalised table shared by the layers would have its graph freed by the
  // first recomputed layer's backward.
  for (size_t i = 0; i < layers_->size(); ++i) {
    auto rows = packed ? kept_rows(*packed, i, layers_->size()) : torch::Tensor();
    auto call = [l = layers_[i]->as<DebertaV2Layer>(), in, rows, table = rel_embeddings_, norm = rel_norm_](
                    const torch::Tensor& x) mutable {
      RelativeAttentionInputs with = in;
      if (table) with.rel_embeddings = norm ? norm(table->weight) : table->weight;
      return l->forward(x, with, rows);
    };
    h = run_layer(call, h);
    if (hidden_states) hidden_states->push_back(h);
  }
  return h;
}

torch::Tensor DebertaV2Model::encode_padded(const ModelBatch& b, const ForwardOptions& o,
                                            std::vector<torch::Tensor>& hidden_states) {
  return encode(embed(b), attention_inputs(b), nullptr, o.output_hidden_states ? &hidden_states : nullptr);
}

torch::Tensor DebertaV2Model::encode_unpadded(const ModelBatch& b, const PackedTokens& packed) {
  RelativeAttentionInputs in = attention_inputs(b);
  in.token_index = packed.token_index, in.batch = b.input_ids.size(0), in.length = b.input_ids.size(1);
  if (b.input_ids.device().is_cpu()) packed_inputs(in);
  return encode(embed_unpadded(b, packed.token_index), in, &packed, nullptr);
}

torch::Tensor DebertaV2ForSequenceClassification::head(const EncoderOutput& encoded, ModelOutput& out) {
  // ContextPooler: the first token, dropout, dense, the pooler's activation.
  auto first = train_dropout(encoded.first_tokens(), config_.pooler_dropout, is_training());
  out.pooled = hf_activation(config_.pooler_hidden_act, linear_forward(pooler_, first));
  auto pooled = train_dropout(out.pooled, config_.classifier_dropout(), is_training());
  return linear_forward(classifier_, pooled);
}

}  // namespace runner
