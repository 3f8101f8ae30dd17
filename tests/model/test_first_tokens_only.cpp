// A sequence head's encoder keeps only each sequence's first token past the
// last layer's attention: the kept rows carry the same values and send the
// same gradients to every layer as when all rows run, dropout included, for
// each family that does so.
#include "catch.h"

#include "golden.h"
#include "model/bert.h"
#include "model/deberta_v2.h"
#include "model/distilbert.h"
#include "shared.h"

using namespace runner;
using namespace runner::test;

namespace {

// `every` and `first`: two encoders of one family with the same weights
// after this call; `first` keeps only the first tokens.
void check_first_tokens_kept(Encoder& every, Encoder& first) {
  {
    torch::NoGradGuard no_grad;
    auto from = every.parameters(), to = first.parameters();
    for (size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  }
  first.keep_first_tokens_only(true);
  const auto batch = test::parity_batch();
  for (const bool training : {false, true}) {
    INFO((training ? "training, dropout drawn" : "eval"));
    every.train(training);
    first.train(training);
    every.zero_grad();
    first.zero_grad();
    torch::manual_seed(9);  // each side draws the same dropout seeds
    const EncoderOutput all = every.forward(batch, {});
    torch::manual_seed(9);
    const EncoderOutput kept = first.forward(batch, {});
    REQUIRE(all.packed);
    CHECK_FALSE(all.first_tokens_only);
    CHECK(all.hidden.size(0) == batch.attention_mask.sum().item<int64_t>());
    REQUIRE(kept.first_tokens_only);
    CHECK(kept.hidden.size(0) == batch.input_ids.size(0));  // B rows left the last layer, not T
    // The same sums for the kept rows, dropout's masks included; only a GEMM
    // over B rows instead of T may order them differently, each within fp32's
    // K 2^-24 of the exact value (K <= 128 here), far under the 1e-5 that
    // packed and padded agree to.
    CHECK(max_abs_diff(kept.first_tokens(), all.first_tokens()) <= 1e-5);
    // Gradients through the kept rows reach every layer as through all rows.
    kept.first_tokens().sum().backward();
    all.first_tokens().sum().backward();
    auto want = every.named_parameters(), got = first.named_parameters();
    for (size_t i = 0; i < want.size(); ++i) {
      if (!want[i].value().grad().defined()) continue;  // a pooler: not on this path
      INFO(want[i].key());
      const double scale = std::max(1.0, want[i].value().grad().abs().max().item<double>());
      CHECK(max_abs_diff(got[i].value().grad(), want[i].value().grad()) <= 1e-5 * scale);
    }
  }
}

}  // namespace

TEST_CASE("BERT keeps only the first tokens past the last attention, same values and gradients", "[model]") {
  BertConfig config = read_bert_config(golden("tiny_bert/config.json"));
  config.hidden_dropout_prob = 0.1;  // BERT's; the golden config has none
  config.attention_probs_dropout_prob = 0.1;
  torch::manual_seed(5);
  BertModel every(config, /*with_pooler=*/true), first(config, /*with_pooler=*/true);
  check_first_tokens_kept(every, first);
}

TEST_CASE("DistilBERT keeps only the first tokens past the last attention, same values and gradients",
          "[model]") {
  const DistilBertConfig config =
      distilbert_config_from_json(read_json(golden("tiny_distilbert/config.json")), "tiny_distilbert");
  REQUIRE(config.dropout > 0);  // the feed-forward's dropout: its kept rows draw their places' masks
  torch::manual_seed(5);
  DistilBertModel every(config), first(config);
  check_first_tokens_kept(every, first);
}

TEST_CASE("DeBERTa-v2 keeps only the first tokens past the last attention, same values and gradients",
          "[model]") {
  nlohmann::json json = read_json(source_dir() + "/tests/model/golden/tiny_deberta-v2/config.json");
  json["vocab_size"] = 30522;  // the batch's BERT ids
  json["hidden_dropout_prob"] = 0.1;  // DeBERTa-v3's; the tiny config has none
  json["attention_probs_dropout_prob"] = 0.1;
  const DebertaV2Config config = deberta_v2_config_from_json(json, "tiny_deberta-v2");
  torch::manual_seed(5);
  DebertaV2Model every(config), first(config);
  check_first_tokens_kept(every, first);
}
