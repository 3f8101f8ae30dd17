// bench/model: forward+backward throughput of the BERT model (padded and
// unpadded execution) against a plain torch::nn::TransformerEncoder of the
// same size, with achieved GFLOP/s against a large-GEMM ceiling measured here.
//
//   model_bench [iterations-mini=5] [iterations-base=2] [threads=0 (LibTorch default)]
#include "model/bert.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

using namespace runner;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Median-free simple timing: one warm-up call, then the mean of `iters` calls.
template <class F>
double time_per_call(F&& f, int iters) {
  f();
  auto t0 = Clock::now();
  for (int i = 0; i < iters; ++i) f();
  return seconds_since(t0) / iters;
}

double gemm_ceiling_gflops() {
  auto a = torch::randn({2048, 2048}), b = torch::randn({2048, 2048});
  double s = time_per_call([&] { torch::mm(a, b); }, 5);
  return 2.0 * 2048.0 * 2048.0 * 2048.0 / s / 1e9;
}

// Training FLOPs per real token of one encoder layer stack: the GEMMs
// (4H^2 + 2HI multiply-adds) plus attention (2 L H), x3 for forward + backward.
double train_flops_per_token(const BertConfig& c, double attended_length) {
  double h = c.hidden_size, i = c.intermediate_size;
  double per_layer = 2.0 * (4.0 * h * h + 2.0 * h * i) + 2.0 * 2.0 * attended_length * h;
  return 3.0 * per_layer * c.num_hidden_layers;
}

// MRPC-like lengths: a third of the batch's tokens are padding.
torch::Tensor mrpc_like_mask(int64_t batch, int64_t length) {
  auto lengths = torch::randint(length / 3, length + 1, {batch}, torch::kInt64);
  lengths[0] = length;
  return torch::arange(length).unsqueeze(0).lt(lengths.unsqueeze(1)).to(torch::kInt64);
}

struct Result { double tokens_per_s, gflops; };

Result bench_bert(const BertConfig& c, Execution e, const torch::Tensor& mask, int iters) {
  BertForSequenceClassification model(c);
  model.init_weights();
  model.set_execution(e);
  model.train();
  ModelBatch b;
  b.attention_mask = mask;
  b.input_ids = torch::randint(1000, 30000, mask.sizes(), torch::kInt64) * mask;
  b.token_type_ids = torch::zeros_like(mask);
  b.labels = torch::randint(0, 2, {mask.size(0)}, torch::kInt64);
  double s = time_per_call([&] {
    model.zero_grad();
    model.forward(b).loss.backward();
  }, iters);
  double real = mask.sum().item<double>();
  // Padded execution spends the FLOPs on every position; count only useful ones.
  double flops = real * train_flops_per_token(c, static_cast<double>(mask.size(1)));
  return {real / s, flops / s / 1e9};
}

Result bench_torch_encoder(const BertConfig& c, int64_t batch, int64_t length, int iters) {
  auto layer = torch::nn::TransformerEncoderLayer(
      torch::nn::TransformerEncoderLayerOptions(c.hidden_size, c.num_attention_heads)
          .dim_feedforward(c.intermediate_size).dropout(0.0).activation(torch::kGELU));
  torch::nn::TransformerEncoder encoder(
      torch::nn::TransformerEncoderOptions(layer, c.num_hidden_layers));
  encoder->train();
  auto x = torch::randn({length, batch, c.hidden_size});
  double s = time_per_call([&] {
    encoder->zero_grad();
    encoder->forward(x).sum().backward();
  }, iters);
  double tokens = static_cast<double>(batch * length);
  return {tokens / s, tokens * train_flops_per_token(c, static_cast<double>(length)) / s / 1e9};
}

void bench_shape(const std::string& name, int iters, double ceiling) {
  BertConfig c = bert_preset(name);
  c.hidden_dropout_prob = c.attention_probs_dropout_prob = 0.0;  // same work as the encoder
  const int64_t batch = 32, length = 128;
  auto full = torch::ones({batch, length}, torch::kInt64);
  auto mrpc = mrpc_like_mask(batch, length);
  Result enc = bench_torch_encoder(c, batch, length, iters);
  Result full_bert = bench_bert(c, Execution::Padded, full, iters);
  Result padded = bench_bert(c, Execution::Padded, mrpc, iters);
  Result unpadded = bench_bert(c, Execution::Unpadded, mrpc, iters);
  fmt::print("{} (batch {}, sequence {}, {} layers, hidden {}):\n", name, batch, length,
             c.num_hidden_layers, c.hidden_size);
  auto row = [&](const char* what, Result r) {
    fmt::print("  {:<44} {:>9.0f} tokens/s {:>7.1f} GFLOP/s ({:>4.1f}% of GEMM ceiling)\n", what,
               r.tokens_per_s, r.gflops, 100.0 * r.gflops / ceiling);
  };
  row("torch::nn::TransformerEncoder, no padding", enc);
  row("runner bert, no padding", full_bert);
  row("runner bert padded, MRPC-like 1/3 padding", padded);
  row("runner bert unpadded, MRPC-like 1/3 padding", unpadded);
  fmt::print("  ratio bert / TransformerEncoder (no padding): {:.2f}\n",
             full_bert.tokens_per_s / enc.tokens_per_s);
  fmt::print("  ratio unpadded / padded (real tokens/s, MRPC-like): {:.2f} ({:.0f}% padding)\n",
             unpadded.tokens_per_s / padded.tokens_per_s,
             100.0 * (1.0 - mrpc.sum().item<double>() / (batch * length)));
}

}  // namespace

int main(int argc, char** argv) {
  int iters_mini = argc > 1 ? std::atoi(argv[1]) : 5;
  int iters_base = argc > 2 ? std::atoi(argv[2]) : 2;
  if (argc > 3 && std::atoi(argv[3]) > 0) at::set_num_threads(std::atoi(argv[3]));
  torch::manual_seed(0);
  double ceiling = gemm_ceiling_gflops();
  fmt::print("threads {}, GEMM ceiling (2048^3 fp32 mm) {:.1f} GFLOP/s\n", at::get_num_threads(),
             ceiling);
  bench_shape("bert-mini", iters_mini, ceiling);
  if (iters_base > 0) bench_shape("bert-base", iters_base, ceiling);
  return 0;
}
