// A LoRA run end to end through the CLI on a pretrained tiny BERT: the log says
// what trains, the base weights come out untouched, evaluate scores the adapted
// model, checkpoints hold what trains and the frozen weights' sha256, a kill -9
// and resume ends bitwise equal (and is refused over other frozen weights), and `runner export` writes a
// PEFT adapter folder under PEFT's key names, or with --merge a whole folder with
// the adapters merged. Refusals of settings that name nothing exit 2 before training.
#include "model/checkpoint.h"
#include "model/safetensors.h"
#include "util/sha256.h"
#include "run_files.h"
#include "shared.h"
#include "util/synced_file.h"

#include "catch.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
using runner::test::isolated_run_sets;
using runner::test::only_run_dir;
using runner::test::run_summary;
using runner::test::runner_cmd;

namespace {

std::string tiny_bert() { return runner::test::shared_dir() + "/golden/tiny_bert"; }

// tiny_bert's config and weights in dir/base: a base whose weights a test may change.
std::string copied_base(const std::string& dir) {
  fs::create_directories(dir + "/base");
  for (const char* f : {"config.json", "model.safetensors"})
    fs::copy_file(tiny_bert() + "/" + f, dir + "/base/" + f, fs::copy_options::overwrite_existing);
  return dir + "/base";
}

// 8 steps of 8 MRPC pairs from `base` (tiny_bert: hidden 64, 2 layers), adapters on query and value.
// One thread for every command that reads it: how a GEMM splits its work over
// threads may change the order of its sums, and the evaluations compare exactly.
std::string write_recipe(const std::string& dir, const std::string& base = tiny_bert()) {
  const std::string path = dir + "/lora.toml";
  std::ofstream(path) << "[run]\nname = \"lora\"\nseed = 3\ndevice = \"cpu\"\nthreads = 1\n"
                      << "[data]\ndataset = \"glue/mrpc\"\nmax_length = 48\ntrain_batch_size = 8\n"
                      << "eval_batch_size = 32\nmax_train_examples = 64\nmax_eval_examples = 32\n"
                      << "[tokenizer]\npath = \"" << runner::test::shared_dir() << "/models/bert-base-uncased\"\n"
                      << "[model]\ntype = \"bert\"\npretrained = \"" << base << "\"\n"
                      << "[lora]\nenabled = true\nr = 4\nalpha = 8\nmodules_to_save = [\"classifier\"]\n"
                      << "[optimizer]\nlr = 1e-2\n[train]\nepochs = 1\nlog_every = 2\ncheckpoint_every = 4\n";
  return path;
}

std::map<std::string, torch::Tensor> tensors(const std::string& file) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& [k, v] : runner::read_weights(file)) out[k] = v;
  return out;
}

// The names a run of write_recipe trains: the adapters and the classifier.
std::set<std::string> trained_names() {
  std::set<std::string> names = {"classifier.weight", "classifier.bias"};
  for (const std::string layer : {"0", "1"})
    for (const std::string m : {"query", "value"})
      for (const std::string ab : {"A", "B"})
        names.insert("bert.encoder.layer." + layer + ".attention.self." + m + ".lora_" + ab + ".weight");
  return names;
}

// `file` with one bit of one tensor's first float flipped (its lowest mantissa bit).
void flip_first_bit(const std::string& file, const std::string& tensor) {
  std::string bytes = runner::read_file_bytes(file);
  uint64_t header = 0;
  std::memcpy(&header, bytes.data(), 8);
  uint64_t begin = 0;
  {
    const runner::SafetensorsFile st(file);
    begin = st.find(tensor)->begin;
  }
  bytes[8 + header + begin] ^= 1;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

nlohmann::json first_event(const std::string& run, const std::string& kind) {
  std::ifstream in(run + "/metrics.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto e = nlohmann::json::parse(line);
    if (e.value("event", "") == kind) return e;
  }
  return {};
}

}  // namespace

TEST_CASE("a LoRA run trains only its adapters and classifier, resumes exactly and exports for PEFT",
          "[e2e][lora]") {
  const std::string dir = runner::test::tmp_dir("lora_run");
  const std::string base_dir = copied_base(dir);
  const std::string recipe = write_recipe(dir, base_dir);
  auto r = runner_cmd("", recipe + isolated_run_sets(dir + "/ref"));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  const std::string run = only_run_dir(dir + "/ref", "lora");
  // 2 layers x (query, value) x (A [4, 64] + B [64, 4]) = 2048, and the classifier's 64 x 2 + 2.
  const nlohmann::json lora = first_event(run, "lora");
  CHECK(lora.at("trainable_parameters") == 2048 + 130);
  CHECK(lora.at("adapted_modules") == 4);
  CHECK(lora.at("trained_in_full") == nlohmann::json({"classifier.weight", "classifier.bias"}));
  CHECK(run_summary(run).at("lora").at("trainable_parameters") == 2048 + 130);

  auto base = tensors(base_dir + "/model.safetensors");
  auto trained = tensors(run + "/final/model.safetensors");
  CHECK(torch::equal(trained.at("bert.encoder.layer.0.attention.self.query.weight"),
                     base.at("bert.encoder.layer.0.attention.self.query.weight")));
  CHECK(torch::equal(trained.at("bert.pooler.dense.weight"), base.at("bert.pooler.dense.weight")));
  CHECK_FALSE(torch::equal(trained.at("classifier.weight"), base.at("classifier.weight")));
  CHECK(trained.at("bert.encoder.layer.1.attention.self.value.lora_B.weight").abs().max().item<double>() > 0);

  // The optimizer holds state for what trains only.
  auto optimizer = tensors(run + "/checkpoints/step-00000008/optimizer.safetensors");
  CHECK_FALSE(optimizer.empty());
  for (const auto& [key, tensor] : optimizer) {
    INFO(key);
    CHECK((key.find(".lora_") != std::string::npos || key.find("classifier.") != std::string::npos));
  }

  // evaluate reads the run's adapters through the recipe's [lora]: the final evaluation's scores again.
  auto scored = runner_cmd("", "evaluate " + run + " --json 2>/dev/null");
  INFO(scored.out);
  REQUIRE(scored.exit_code == 0);
  const nlohmann::json scores = nlohmann::json::parse(scored.out);
  CHECK(scores.at("accuracy") == run_summary(run).at("final").at("accuracy"));
  CHECK(scores.at("f1") == run_summary(run).at("final").at("f1"));

  {  // A checkpoint holds what trains, and the sha256 of the frozen weights it trained over:
     // the pretrained file's tensors but the classifier, each as name, shape and bytes, in name order.
    const std::string step4 = run + "/checkpoints/step-00000004/model.safetensors";
    std::set<std::string> saved;
    for (const auto& [k, v] : tensors(step4)) saved.insert(k);
    CHECK(saved == trained_names());
    runner::digest::Sha256 sha;
    for (const auto& [name, t] : base) {
      if (name.rfind("classifier.", 0) == 0) continue;
      sha.update(name + "\n" + std::to_string(t.size(0)) + (t.dim() == 2 ? "x" + std::to_string(t.size(1)) : "") + "\n");
      sha.update(t.contiguous().data_ptr(), t.nbytes());
    }
    CHECK(runner::SafetensorsFile(step4).metadata().at("base_weights_sha256") == sha.hex_digest());
    // 2178 trained floats against the whole model's 1.9 million.
    CHECK(fs::file_size(step4) * 100 < fs::file_size(run + "/final/model.safetensors"));
  }

  {  // A kill -9 after the step-4 checkpoint: its resume over other frozen weights is refused,
     // and leaves the run to resume over its own, which ends bitwise equal.
    auto killed = runner_cmd("RUNNER_TEST_KILL_AT_STEP=6", recipe + isolated_run_sets(dir + "/killed"));
    INFO(killed.out);
    REQUIRE(killed.exit_code == 128 + 9);
    const std::string again = only_run_dir(dir + "/killed", "lora");
    const std::string pristine = runner::read_file_bytes(base_dir + "/model.safetensors");
    flip_first_bit(base_dir + "/model.safetensors", "bert.pooler.dense.weight");
    auto other = runner_cmd("", "resume " + again);
    INFO(other.out);
    CHECK(other.exit_code == 2);
    CHECK_THAT(other.out, Catch::Contains("step-00000004/model.safetensors") &&
                              Catch::Contains("trained over frozen weights of sha256") &&
                              Catch::Contains("resume with the model.pretrained"));
    auto scored_other = runner_cmd("", "evaluate " + run + " --checkpoint 4");
    INFO(scored_other.out);
    CHECK(scored_other.exit_code == 2);
    CHECK_THAT(scored_other.out, Catch::Contains("point model.pretrained at the weights the run was trained on"));
    std::ofstream(base_dir + "/model.safetensors", std::ios::binary | std::ios::trunc) << pristine;
    auto resumed = runner_cmd("", "resume " + again);
    INFO(resumed.out);
    REQUIRE(resumed.exit_code == 0);
    CHECK(runner::read_file_bytes(again + "/final/model.safetensors") ==
          runner::read_file_bytes(run + "/final/model.safetensors"));
  }

  {  // train.load_best_at_end puts the best checkpoint's trained tensors back over the frozen base:
     // the dev loss is lower at step 4 than at step 8, so final/ holds step 4's.
    auto best_run = runner_cmd("", recipe + isolated_run_sets(dir + "/best") +
                                       " --set train.load_best_at_end=true --set train.eval_every=4"
                                       " --set train.metric_for_best=eval.loss");
    INFO(best_run.out);
    REQUIRE(best_run.exit_code == 0);
    const std::string at = only_run_dir(dir + "/best", "lora");
    REQUIRE(run_summary(at).at("best").at("checkpoint") == "step-00000004");
    auto kept = tensors(at + "/checkpoints/step-00000004/model.safetensors");
    auto final_weights = tensors(at + "/final/model.safetensors");
    for (const auto& name : trained_names()) CHECK(torch::equal(final_weights.at(name), kept.at(name)));
    CHECK_FALSE(torch::equal(final_weights.at("classifier.weight"), trained.at("classifier.weight")));
    CHECK(torch::equal(final_weights.at("bert.pooler.dense.weight"), base.at("bert.pooler.dense.weight")));
  }

  {  // The export is a PEFT adapter folder holding what trained, under PEFT's names.
    auto e = runner_cmd("", "export " + run + " --to " + dir + "/adapter");
    INFO(e.out);
    REQUIRE(e.exit_code == 0);
    std::ifstream config_in(dir + "/adapter/adapter_config.json");
    const nlohmann::json config = nlohmann::json::parse(config_in);
    CHECK(config.at("peft_type") == "LORA");
    CHECK(config.at("task_type") == "SEQ_CLS");
    CHECK(config.at("r") == 4);
    CHECK(config.at("lora_alpha") == 8.0);
    CHECK(config.at("target_modules") == nlohmann::json({"query", "value"}));
    CHECK(config.at("modules_to_save") == nlohmann::json({"classifier"}));
    CHECK(config.at("base_model_name_or_path") == fs::weakly_canonical(base_dir).string());
    auto adapter = tensors(dir + "/adapter/adapter_model.safetensors");
    std::set<std::string> keys;
    for (const auto& [k, v] : adapter) keys.insert(k);
    std::set<std::string> want = {"base_model.model.classifier.weight", "base_model.model.classifier.bias"};
    for (const std::string layer : {"0", "1"})
      for (const std::string m : {"query", "value"})
        for (const std::string ab : {"A", "B"})
          want.insert("base_model.model.bert.encoder.layer." + layer + ".attention.self." + m + ".lora_" + ab + ".weight");
    CHECK(keys == want);
    CHECK(torch::equal(adapter.at("base_model.model.bert.encoder.layer.0.attention.self.query.lora_B.weight"),
                       trained.at("bert.encoder.layer.0.attention.self.query.lora_B.weight")));
    // Without its run, a folder of weights with adapters is refused, rather than predicted with the base alone.
    std::ofstream(dir + "/in.jsonl") << R"({"text_a": "The cat sat.", "text_b": "A cat was sitting."})" << "\n";
    fs::copy(run + "/final", dir + "/final_alone", fs::copy_options::recursive);
    auto p = runner_cmd("", "predict --model " + dir + "/final_alone --input " + dir + "/in.jsonl");
    CHECK(p.exit_code == 2);
    CHECK_THAT(p.out, Catch::Contains("LoRA adapters") && Catch::Contains("--model RUN"));
  }

  {  // --merge: a whole Hugging Face folder, each adapted weight W + scale B A, which predict reads.
    auto e = runner_cmd("", "export " + run + " --to " + dir + "/merged --merge");
    INFO(e.out);
    REQUIRE(e.exit_code == 0);
    auto merged = tensors(dir + "/merged/model.safetensors");
    std::set<std::string> keys, base_keys;
    for (const auto& [k, v] : merged) keys.insert(k);
    for (const auto& [k, v] : base) base_keys.insert(k);
    CHECK(keys == base_keys);  // the base architecture: no lora_ tensor left
    CHECK(torch::equal(merged.at("bert.pooler.dense.weight"), base.at("bert.pooler.dense.weight")));
    CHECK(torch::equal(merged.at("classifier.weight"), trained.at("classifier.weight")));
    const double scale = 8.0 / 4;  // alpha / r
    for (const std::string layer : {"0", "1"})
      for (const std::string m : {"query", "value"}) {
        const std::string at = "bert.encoder.layer." + layer + ".attention.self." + m;
        INFO(at);
        const torch::Tensor w = trained.at(at + ".weight").to(torch::kFloat64);
        const torch::Tensor a = trained.at(at + ".lora_A.weight").to(torch::kFloat64);
        const torch::Tensor b = trained.at(at + ".lora_B.weight").to(torch::kFloat64);
        const torch::Tensor exact = w + b.mm(a) * scale;
        // One rounding to float32 (2^-24 of the value), after a float64 sum of r + 1 = 5
        // terms (each rounding at most 2^-53 of the sum of magnitudes; 8 x covers them).
        const torch::Tensor bound = exact.abs() * std::ldexp(1.0, -24) +
                                    (w.abs() + b.abs().mm(a.abs()) * scale) * 8 * std::ldexp(1.0, -53);
        const torch::Tensor got = merged.at(at + ".weight").to(torch::kFloat64);
        CHECK(((got - exact).abs() <= bound).all().item<bool>());
        CHECK_FALSE(torch::equal(merged.at(at + ".weight"), base.at(at + ".weight")));  // B moved: it merged
      }
    auto p = runner_cmd("", "predict --model " + dir + "/merged --input " + dir + "/in.jsonl");
    INFO(p.out);
    CHECK(p.exit_code == 0);
    CHECK_THAT(p.out, Catch::Contains("label"));
    // predict with the run merges its adapters as the export did: the same logits, bit for bit.
    auto from_run = runner_cmd("", "predict --model " + run + " --input " + dir + "/in.jsonl");
    INFO(from_run.out);
    CHECK(from_run.exit_code == 0);
    CHECK(from_run.out == p.out);
    // So does predict with the adapter folder, on the base its adapter_config.json names. An
    // adapter folder carries no label names (PEFT's has none either): LABEL_0, as Transformers says.
    auto from_adapter = runner_cmd("", "predict --model " + dir + "/adapter --input " + dir + "/in.jsonl");
    INFO(from_adapter.out);
    REQUIRE(from_adapter.exit_code == 0);
    const auto adapter_line = nlohmann::json::parse(from_adapter.out), merged_line = nlohmann::json::parse(p.out);
    CHECK(adapter_line.at("logits") == merged_line.at("logits"));
    CHECK(adapter_line.at("label") == merged_line.at("label"));
    CHECK(adapter_line.at("label_name") == "LABEL_" + std::to_string(merged_line.at("label").get<int>()));
    // On another base the adapter's names are not found: refused, naming the fix.
    auto other = runner_cmd("", "predict --model " + dir + "/adapter --base " + runner::test::source_dir() +
                                    "/tests/model/golden/tiny_roberta --input " + dir + "/in.jsonl");
    CHECK(other.exit_code == 2);
    CHECK_THAT(other.out, Catch::Contains("base_model_name_or_path"));
    // evaluate scores the adapter folder on the recipe's base as the run's own final/ scores.
    auto of_run = runner_cmd("", "evaluate " + run + " --json");
    auto of_adapter = runner_cmd("", "evaluate " + dir + "/adapter --recipe " + recipe + " --json");
    INFO(of_run.out << of_adapter.out);
    REQUIRE(of_run.exit_code == 0);
    REQUIRE(of_adapter.exit_code == 0);
    const auto a = nlohmann::json::parse(of_run.out), b = nlohmann::json::parse(of_adapter.out);
    for (const char* metric : {"loss", "accuracy", "f1"}) CHECK(a.at(metric) == b.at(metric));
  }
}

TEST_CASE("a LoRA target or module to save that names nothing is refused before training", "[e2e][lora]") {
  const std::string dir = runner::test::tmp_dir("lora_refused");
  const std::string recipe = write_recipe(dir);
  auto typo = runner_cmd("", recipe + isolated_run_sets(dir) + " --set lora.target_modules=quer");
  INFO(typo.out);
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.out, Catch::Contains("lora.target_modules") && Catch::Contains("did you mean \"query\"") &&
                           Catch::Contains("query, key, value, dense, classifier"));
  auto save = runner_cmd("", recipe + isolated_run_sets(dir) + " --set lora.modules_to_save=head");
  INFO(save.out);
  CHECK(save.exit_code == 2);
  CHECK_THAT(save.out, Catch::Contains("lora.modules_to_save") && Catch::Contains("\"head\" names no module"));
}
