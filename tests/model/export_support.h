// What the export round-trip tests share: a short real run of the smoke recipe
// through `runner run`, weight-file comparison, and the in-process logits that
// `runner predict` must reproduce.
#pragma once

#include "golden.h"
#include "run/run_dir.h"
#include "run/run_search.h"
#include "tokenizer/encoding.h"
#include "tokenizer/wordpiece_loader.h"

#include "catch.h"

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace runner::test {

// `runner run recipes/smoke/mrpc_smoke.toml` under a fresh `name` folder with
// `overrides` (--set flags) on 64 training and 32 eval pairs, 1 thread; returns the run directory.
inline std::string smoke_run(const std::string& name, const std::string& overrides) {
  std::string dir = tmp_dir(name);
  auto r = run_command(runner_exe() + " run " + source_dir() + "/recipes/smoke/mrpc_smoke.toml" +
                       " --set run.output_dir=" + dir + "/runs --set data.cache_dir=" + dir + "/cache" +
                       " --set run.threads=1 --set data.max_train_examples=64" +
                       " --set data.max_eval_examples=32 " + overrides);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  auto dirs = list_run_dirs(dir + "/runs", "mrpc_smoke");
  REQUIRE(dirs.size() == 1);
  return dirs[0];
}

// Tensor names of a safetensors file in file order.
inline std::vector<std::string> safetensors_names(const std::string& file) {
  std::vector<std::string> names;
  for (const auto& [name, t] : read_safetensors_weights(file)) names.push_back(name);
  return names;
}

// Every tensor of both weight files, compared bit for bit by name.
inline void check_same_weights(const std::string& a, const std::string& b) {
  auto read = [](const std::string& f) {
    std::map<std::string, torch::Tensor> m;
    for (auto& [k, t] : read_safetensors_weights(f)) m[k] = t;
    return m;
  };
  auto wa = read(a), wb = read(b);
  REQUIRE(wa.size() == wb.size());
  for (const auto& [name, t] : wa) {
    INFO(name);
    REQUIRE(wb.count(name) == 1);
    CHECK(t.scalar_type() == wb.at(name).scalar_type());
    CHECK(torch::equal(t, wb.at(name)));
  }
}

// The first `n` MRPC dev pairs as predict input lines.
inline std::vector<std::string> mrpc_pairs(int n) {
  std::ifstream dev(golden("tokenization/mrpc_dev.jsonl"));
  std::vector<std::string> lines;
  std::string line;
  while (static_cast<int>(lines.size()) < n && std::getline(dev, line)) {
    auto j = nlohmann::json::parse(line);
    lines.push_back(nlohmann::json{{"text_a", j["text_a"]}, {"text_b", j["text_b"]}}.dump());
  }
  return lines;
}

// The checkpoint's weights in a model built by our loader, on the same pairs,
// padded to the longest as predict pads them.
inline torch::Tensor in_process_logits(const std::string& exported, const std::string& checkpoint,
                                       const std::vector<std::string>& pairs) {
  auto model = load_model_folder(exported, checkpoint + "/model.safetensors").model;
  model->eval();
  auto tokenizer = load_wordpiece(WordPieceSource{exported});
  std::vector<Encoding> encodings;
  size_t longest = 0;
  for (const auto& p : pairs) {
    auto j = nlohmann::json::parse(p);
    std::string a = j["text_a"], b = j["text_b"];
    encodings.push_back(encode(*tokenizer, a, std::optional<std::string_view>(b),
                               EncodeOptions{128, truncation_from_name("longest_first")}));
    longest = std::max(longest, encodings.back().input_ids.size());
  }
  auto rows = static_cast<int64_t>(pairs.size()), cols = static_cast<int64_t>(longest);
  ModelBatch batch{torch::zeros({rows, cols}, torch::kInt64), torch::zeros({rows, cols}, torch::kInt64),
                   torch::zeros({rows, cols}, torch::kInt64), {}};
  for (int64_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < encodings[r].input_ids.size(); ++c) {
      batch.input_ids[r][c] = encodings[r].input_ids[c];
      batch.token_type_ids[r][c] = encodings[r].token_type_ids[c];
      batch.attention_mask[r][c] = 1;
    }
  torch::NoGradGuard no_grad;
  return model->forward(batch).logits;
}

// `runner predict --model DIR` on `pairs`: the logits it printed, one row per pair.
inline std::vector<std::vector<double>> cli_predict(const std::string& model_dir,
                                                    const std::vector<std::string>& pairs) {
  std::string input = model_dir + "/../pairs.jsonl";
  {
    std::ofstream out(input);
    for (const auto& p : pairs) out << p << "\n";
  }
  // Braces: run_command's own 2>&1 would otherwise send stderr back into the JSON lines.
  auto r = run_command("{ " + runner_exe() + " predict --model " + model_dir + " --input " + input +
                       " 2>/dev/null; }");
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::vector<std::vector<double>> logits;
  for (std::string line; std::getline(lines, line);)
    logits.push_back(nlohmann::json::parse(line)["logits"].get<std::vector<double>>());
  return logits;
}

}  // namespace runner::test
