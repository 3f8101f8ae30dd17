// LoRA training by the runner's Trainer against Hugging Face PEFT over 20 steps
// (tests/model/golden/lora, scripts/golden/lora_parity.py): the tiny token
// models of tests/model/golden/token with adapters on the family's preset
// targets (r 4, alpha 8, with and without rsLoRA, no dropout) and the
// classifier trained whole, A copied from PEFT's saved init, B zero; AdamW over
// the trainable parameters only, the token trajectory's schedule and clipping.
#include "token_trajectory.h"

#include "model/checkpoint.h"
#include "model/lora.h"
#include "model/lora_export.h"

using namespace runner;
using namespace runner::test;

namespace {

std::string lora_golden(const std::string& rel) { return source_dir() + "/tests/model/golden/lora/" + rel; }

// The base model with PEFT's adapters: settings as the golden's, A from PEFT's saved init.
std::shared_ptr<TaskModel> adapted_model(const std::string& family, const nlohmann::json& golden,
                                         const std::string& adapter_dir) {
  auto model = load_model_folder(token_golden("tiny_" + family)).model;
  LoraSettings s = lora_options().defaults();
  s.enabled = true;
  s.r = golden.at("r");
  s.alpha = golden.at("alpha");
  s.rslora = golden.at("rslora");
  s.modules_to_save = {"classifier"};
  attach_lora(*model, s, family, {});
  auto params = model->named_parameters();
  torch::NoGradGuard no_grad;
  long long copied = 0;
  for (const auto& [key, tensor] : read_weights(adapter_dir + "/adapter_model.safetensors")) {
    const std::string name = key.substr(std::string("base_model.model.").size());
    INFO(key);
    REQUIRE(key == peft_key(name));
    REQUIRE(params.contains(name));
    params[name].copy_(tensor);
    copied += name.find(".lora_A.") != std::string::npos;
  }
  CHECK(copied == (family == "modernbert" ? 2 : 4));
  return model;
}

nlohmann::json read_golden(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::unique_ptr<Optimizer> trainable_adamw(TaskModel& model) {
  std::vector<NamedParameter> params;
  for (auto& p : model.named_parameters())
    if (p.value().requires_grad()) params.push_back({p.key(), p.value()});
  nlohmann::json opt = {{"lr", 5e-4}, {"weight_decay", 0.01}, {"no_decay", {"bias", "LayerNorm.weight"}},
                        {"betas", {0.9, 0.999}}, {"eps", 1e-8}};
  return registry().factory<OptimizerFactory>(Kind::Optimizer, "adamw")(opt, params);
}

}  // namespace

TEST_CASE("lora: 20 training steps follow PEFT's loss and gradient norm", "[train][lora]") {
  at::set_num_threads(1);
  for (const std::string family : {"bert", "distilbert", "roberta", "deberta-v2"})
    for (const std::string variant : {"", "_rslora"}) {
      INFO(family << variant);
      const auto token = token_expected(family);
      const nlohmann::json golden = read_golden(lora_golden(family + variant + ".json"));
      auto model = adapted_model(family, golden, lora_golden(family + variant + ".adapter"));
      // PEFT trains the same parameters: its names are the runner's inside its wrappers.
      long long trainable = 0;
      for (const auto& p : model->parameters()) trainable += p.requires_grad() ? p.numel() : 0;
      CHECK(trainable == golden.at("trainable_count").get<long long>());
      {
        // B = 0: the adapted model's logits are the base model's, and both are Transformers'.
        torch::NoGradGuard no_grad;
        model->eval();
        model->set_execution(Execution::Padded);
        const torch::Tensor logits = model->forward(token_batch(token, 0)).logits.to(torch::kFloat64);
        // fp32 through the same ops: the token goldens' bound (GEMMs of K <= 64 in another order).
        CHECK((logits - nested_logits(golden.at("init_logits"))).abs().max().item<double>() <= 1e-5);
        CHECK(golden.at("init_logits") == golden.at("base_logits"));
        model->set_execution(Execution::Unpadded);
        model->train();
      }
      GoldenData data{FixedBatches(token_train_batches(token)), {}};
      Trainer trainer(golden_trainer_config(GoldenLoop{}), model, trainable_adamw(*model), golden_schedule(),
                      data.batches, nullptr, std::vector<Logger*>{&data.capture});
      REQUIRE(trainer.total_steps() == 20);
      trainer.train();
      // fp32 and the same ops as PEFT: the full fine-tune token trajectories agree
      // to 1e-5 relative over these 20 steps, and an adapter adds two GEMMs of
      // K <= 64 per adapted layer, each summing in another order at most K x 2^-24
      // ~ 4e-6 relative, which the LayerNorms keep from compounding.
      const double worst =
          check_trajectory(data.capture.of("train"), golden.at("trajectory"), 1e-5).grad_norm;
      WARN(family << variant << ": worst step gradient norm relative " << worst);
    }
}

TEST_CASE("lora: 20 bf16 autocast steps follow PEFT's under torch.autocast", "[train][lora]") {
  at::set_num_threads(1);
  for (const std::string family : {"bert", "roberta"}) {
    INFO(family);
    const auto token = token_expected(family);
    const nlohmann::json golden = read_golden(lora_golden(family + "_bf16.json"));
    const nlohmann::json fp32 = read_golden(lora_golden(family + ".json"));
    auto model = adapted_model(family, fp32, lora_golden(family + ".adapter"));
    GoldenData data{FixedBatches(token_train_batches(token)), {}};
    GoldenLoop loop;
    loop.precision = Precision::Bf16;
    Trainer trainer(golden_trainer_config(loop), model, trainable_adamw(*model), golden_schedule(), data.batches,
                    nullptr, std::vector<Logger*>{&data.capture});
    trainer.train();
    const auto steps = data.capture.of("train");
    // A logit's path crosses 2 layers of 8 products and 2 adapters of 2 products
    // each, then the classifier: 25 products of bf16-rounded inputs, each off by
    // at most 2^-8 relative, adding to first order. Losses and gradient norms are
    // smooth in the logits: the bound of the full fine-tune's bf16 test.
    const double bound = 25.0 / 256;
    const double to_peft_bf16 = trajectory_distance(steps, golden.at("trajectory")).largest();
    CHECK(to_peft_bf16 <= bound);
    // The run was in bf16: an fp32 run keeps within 1e-5 of PEFT's fp32
    // trajectory (the test above), and this one is farther than ten times that.
    const double to_peft_fp32 = trajectory_distance(steps, fp32.at("trajectory")).largest();
    CHECK(to_peft_fp32 > 1e-4);
    WARN(family << " bf16: largest relative distance to PEFT's bf16 trajectory " << to_peft_bf16
                << ", to its fp32 one " << to_peft_fp32);
  }
}
