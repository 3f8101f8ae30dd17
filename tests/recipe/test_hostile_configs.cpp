// config.json values that would pass to LibTorch and die there (a dropout of
// 1.5, a negative init std, a padding id outside the table, a rope_type that is
// a number, 10^15 layers) are refused by each family's config reader: `runner
// validate` exits 2 naming the file, the key and the range, at once, and
// `predict` refuses the same folder before allocating anything.
#include "catch.h"

#include "shared.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using runner::test::run_command;
using runner::test::runner_exe;

namespace {

// A valid tiny config of each family, to be spoiled one key at a time.
nlohmann::json tiny_config(const std::string& type) {
  nlohmann::json c = {{"model_type", type}, {"vocab_size", 128}, {"hidden_size", 32}, {"num_hidden_layers", 2},
                      {"num_attention_heads", 4}, {"intermediate_size", 64}, {"max_position_embeddings", 64}};
  if (type == "distilbert")
    c = {{"model_type", "distilbert"}, {"vocab_size", 128}, {"dim", 32}, {"n_layers", 2}, {"n_heads", 4},
         {"hidden_dim", 64}, {"max_position_embeddings", 64}};
  if (type == "electra") c["embedding_size"] = 16;
  if (type == "roberta") c["pad_token_id"] = 1;
  if (type == "modernbert") {
    c["pad_token_id"] = 0;
    c["local_attention"] = 16;
  }
  return c;
}

struct Spoiled {
  const char* type;
  const char* key;
  nlohmann::json value;
  const char* message;  // what the error says of the range
  const char* named = nullptr;  // what names the key in the error, when not the key itself
};

const std::vector<Spoiled>& spoiled_configs() {
  static const std::vector<Spoiled> cases = {
      {"bert", "hidden_dropout_prob", 1.5, "expected a dropout probability in [0, 1)"},
      {"bert", "attention_probs_dropout_prob", 2, "expected a dropout probability in [0, 1)"},
      {"bert", "classifier_dropout", 5, "expected a dropout probability in [0, 1)"},
      {"bert", "initializer_range", -1, "expected a finite number of 0 or more"},
      {"bert", "layer_norm_eps", -1e-12, "expected a finite number above 0"},
      {"bert", "pad_token_id", 10000000, "expected a token id in 0..127"},
      {"electra", "hidden_dropout_prob", 1.0, "expected a dropout probability in [0, 1)"},
      {"roberta", "attention_probs_dropout_prob", -0.1, "expected a dropout probability in [0, 1)"},
      {"distilbert", "dropout", 1.5, "expected a dropout probability in [0, 1)"},
      {"distilbert", "seq_classif_dropout", 2, "expected a dropout probability in [0, 1)"},
      {"distilbert", "initializer_range", -1, "expected a finite number of 0 or more"},
      {"deberta-v2", "hidden_dropout_prob", 1.5, "expected a dropout probability in [0, 1)"},
      {"deberta-v2", "pooler_dropout", 5, "expected a dropout probability in [0, 1)"},
      {"deberta-v2", "layer_norm_eps", 0, "expected a finite number above 0"},
      {"deberta-v2", "position_buckets", 1, "expected 0 or less (no log buckets) or 2 or more"},
      {"deberta-v2", "pad_token_id", 500, "expected a token id in 0..127"},
      {"modernbert", "mlp_dropout", 1.5, "expected a dropout probability in [0, 1)"},
      {"modernbert", "initializer_range", -1, "expected a finite number of 0 or more"},
      {"modernbert", "initializer_cutoff_factor", -1, "expected a finite number above 0"},
      {"modernbert", "norm_eps", -1e-5, "expected a finite number above 0"},
      {"modernbert", "global_rope_theta", 0, "expected a finite number above 0"},
      {"modernbert", "pad_token_id", 50283, "expected a token id in 0..127"},
      {"modernbert", "rope_parameters", {{"full_attention", {{"rope_type", 5}}}}, "rope_type"},
      {"modernbert", "rope_parameters", {{"full_attention", {{"rope_type", "yarn"}}}}, "\"yarn\" is not built here"},
      {"modernbert", "rope_parameters", "default", "expected an object of full_attention and sliding_attention"},
      // The memory refusal names the layers' share of the count, not the key.
      {"modernbert", "num_hidden_layers", 1000000000000000LL, "this machine has", "encoder layers"},
      {"modernbert", "num_labels", 1000000000, "this machine has", "classifier"},
      {"deberta-v2", "num_labels", 1000000000, "this machine has", "classifier"},
  };
  return cases;
}

}  // namespace

TEST_CASE("each family's config.json fields are range-checked by validate and predict, naming file and key",
          "[recipe][hostile]") {
  const std::string root = runner::test::tmp_dir("hostile_configs");
  int n = 0;
  for (const Spoiled& s : spoiled_configs()) {
    const std::string dir = root + "/case" + std::to_string(n++);
    INFO(s.type << " " << s.key << " = " << s.value.dump());
    fs::create_directories(dir + "/model");
    nlohmann::json config = tiny_config(s.type);
    config[s.key] = s.value;
    std::ofstream(dir + "/model/config.json") << config.dump();
    std::ofstream(dir + "/r.toml") << "[model]\ntype = \"" << (std::string(s.type) == "deberta-v2" ? "deberta-v2" : s.type)
                                   << "\"\npretrained = \"./model\"\n";
    const auto t0 = std::chrono::steady_clock::now();
    auto v = run_command("cd " + dir + " && " + runner_exe() + " validate r.toml");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(v.out);
    CHECK(v.exit_code == 2);
    CHECK(v.out.find(dir + "/model/config.json") != std::string::npos);
    CHECK(v.out.find(s.named ? s.named : s.key) != std::string::npos);
    CHECK(v.out.find(s.message) != std::string::npos);
    CHECK(v.out.find("json.exception") == std::string::npos);
    CHECK(seconds < 30);  // no loop over 10^15 layers
    auto p = run_command("echo '{\"text_a\": \"a\"}' | " + runner_exe() + " predict --model " + dir + "/model");
    INFO(p.out);
    CHECK(p.exit_code == 2);
    CHECK(p.out.find(s.message) != std::string::npos);
  }
}

TEST_CASE("ModernBERT's --set of 10^15 layers is the memory refusal, at once", "[recipe][hostile]") {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_command(runner_exe() + " validate " + runner::test::smoke_recipe() +
                       " --set model.type=modernbert --set model.preset=modernbert-base"
                       " --set model.num_hidden_layers=1000000000000000");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("this machine has") != std::string::npos);
  CHECK(seconds < 30);
}
