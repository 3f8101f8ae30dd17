// Small models of the BERT-like families (two layers, width 64 or bert-tiny's)
// with every dropout 0 but attention's: the sections the unpadded-against-
// padded tests build, on the CPU and on a GPU.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

namespace runner::test {

inline std::vector<nlohmann::json> bert_like_sections(double attention_dropout) {
  return {
      {{"type", "bert"}, {"preset", "bert-tiny"}, {"hidden_dropout_prob", 0.0},
       {"attention_probs_dropout_prob", attention_dropout}, {"classifier_dropout", 0.0}},
      {{"type", "distilbert"}, {"preset", "distilbert-base"}, {"n_layers", 2}, {"dim", 64}, {"n_heads", 2},
       {"hidden_dim", 128}, {"dropout", 0.0}, {"attention_dropout", attention_dropout}, {"seq_classif_dropout", 0.0}},
      {{"type", "electra"}, {"preset", "electra-small"}, {"num_hidden_layers", 2}, {"embedding_size", 32},
       {"hidden_size", 64}, {"intermediate_size", 128}, {"hidden_dropout_prob", 0.0},
       {"attention_probs_dropout_prob", attention_dropout}, {"classifier_dropout", 0.0}},
      {{"type", "roberta"}, {"num_hidden_layers", 2}, {"hidden_size", 64}, {"num_attention_heads", 4},
       {"intermediate_size", 128}, {"vocab_size", 30522}, {"hidden_dropout_prob", 0.0},
       {"attention_probs_dropout_prob", attention_dropout}, {"classifier_dropout", 0.0}},
  };
}

}  // namespace runner::test
