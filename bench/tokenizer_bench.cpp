// bench/tokenizer: tokens per second on one thread over MRPC train (both
// sentences) and SST-2 train, with the input rate in MB/s. TOKENIZER is a
// model folder or a tokenizer.json (default: bert-base-uncased's WordPiece);
// bench/tokenizer_json_ab.sh runs it beside Hugging Face tokenizers.
// Usage: tokenizer_bench [SHARED_DIR] [REPEATS] [TOKENIZER]
#include "data/dataset.h"
#include "registry/registry.h"
#include "tokenizer/tokenizer_loader.h"
#include "util/paths.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace runner;

int main(int argc, char** argv) {
  const std::string data = argc > 1 ? std::string(argv[1]) + "/data" : data_root();
  const std::string models = argc > 1 ? std::string(argv[1]) + "/models" : model_root();
  const int repeats = argc > 2 ? std::stoi(argv[2]) : 5;
  std::vector<std::string> texts;
  for (auto [name, dir] : {std::pair{"glue/mrpc", "/glue/MRPC"}, std::pair{"glue/sst2", "/glue/SST-2"}}) {
    auto d = registry().factory<DatasetFactory>(Kind::Dataset, name)({{"dir", data + dir}});
    for (auto& ex : d->load_split("train").examples) {
      texts.push_back(ex.text_a);
      if (ex.text_b) texts.push_back(*ex.text_b);
    }
  }
  size_t bytes = 0;
  for (const auto& t : texts) bytes += t.size();
  auto tok = load_tokenizer({argc > 3 ? std::string(argv[3]) : models + "/bert-base-uncased"});
  std::vector<int32_t> ids;
  double best = 1e30;
  size_t tokens = 0;
  for (int r = 0; r < repeats; ++r) {
    tokens = 0;
    auto start = std::chrono::steady_clock::now();
    for (const auto& t : texts) {
      ids.clear();
      tok->tokenize(t, ids);
      tokens += ids.size();
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::printf("tokenizer bench: %zu texts, %zu tokens, %.2f MB, best of %d runs: %.3f s\n",
              texts.size(), tokens, bytes / 1e6, repeats, best);
  std::printf("%.2f M tokens/s, %.1f MB/s (one thread)\n", tokens / best / 1e6, bytes / best / 1e6);
  return 0;
}
