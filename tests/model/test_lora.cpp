// LoRA adapters on every family's Linear layers (model/lora.h): PEFT's names,
// the base left untouched and frozen, A drawn in PEFT's bound and B zero so the
// adapted model starts equal to the base, target names matched on the dotted
// path, and refusals that name the key and the module names there are.
#include "token_golden.h"

#include "model/lora.h"
#include "model/checkpoint.h"
#include "model/lora_export.h"
#include "model/lora_merge.h"
#include "model/model_factory.h"
#include "util/diagnostic.h"
#include "catch.h"

#include <cmath>
#include <fstream>
#include <set>

using namespace runner;
using namespace runner::test;

namespace {

std::shared_ptr<TaskModel> load_family(const std::string& family) {
  auto model = load_model_folder(token_golden("tiny_" + family)).model;
  model->set_execution(Execution::Padded);
  model->eval();
  return model;
}

LoraSettings settings(std::vector<std::string> targets = {}) {
  LoraSettings s = lora_options().defaults();
  s.enabled = true;
  s.target_modules = std::move(targets);
  return s;
}

// [B, L, C] as nested lists, and back.
std::vector<std::vector<std::vector<double>>> tensor_rows(const torch::Tensor& t) {
  std::vector<std::vector<std::vector<double>>> rows(static_cast<size_t>(t.size(0)));
  for (int64_t b = 0; b < t.size(0); ++b)
    for (int64_t l = 0; l < t.size(1); ++l) {
      std::vector<double> v(static_cast<size_t>(t.size(2)));
      for (int64_t c = 0; c < t.size(2); ++c) v[static_cast<size_t>(c)] = t[b][l][c].item<double>();
      rows[static_cast<size_t>(b)].push_back(v);
    }
  return rows;
}

std::string refusal(TaskModel& model, const LoraSettings& s, const std::string& family) {
  try {
    attach_lora(model, s, family, {});
  } catch (const InputError& e) {
    return e.diagnostic().key_path + ": " + e.diagnostic().message + " | " + e.diagnostic().hint;
  }
  return "";
}

}  // namespace

TEST_CASE("lora: adapters under PEFT's names, the base frozen, the start equal to the base", "[model][lora]") {
  at::set_num_threads(1);
  const std::vector<std::pair<std::string, std::string>> query_of = {
      {"bert", "bert.encoder.layer.0.attention.self.query"},
      {"distilbert", "distilbert.transformer.layer.0.attention.q_lin"},
      {"roberta", "roberta.encoder.layer.0.attention.self.query"},
      {"deberta-v2", "deberta.encoder.layer.0.attention.self.query_proj"},
      {"modernbert", "model.layers.0.attn.Wqkv"},
      {"electra", "electra.encoder.layer.0.attention.self.query"}};
  for (const auto& [family, query] : query_of) {
    INFO(family);
    const auto expected = token_expected(family);
    const ModelBatch batch = token_batch(expected, 0);
    auto base = load_family(family);
    auto adapted = load_family(family);
    const LoraReport report = attach_lora(*adapted, settings(), family, {"classifier.bias"});
    // The preset adapts the query (and value) of both layers: ModernBERT's fused Wqkv once per layer.
    CHECK(report.adapted.size() == (family == "modernbert" ? 2u : 4u));
    CHECK(report.adapted.front() == query);
    auto params = adapted->named_parameters();
    REQUIRE(params.contains(query + ".lora_A.weight"));
    const torch::Tensor a = params[query + ".lora_A.weight"], b = params[query + ".lora_B.weight"];
    const torch::Tensor w = params[query + ".weight"];
    CHECK(a.sizes().vec() == std::vector<int64_t>{8, w.size(1)});
    CHECK(b.sizes().vec() == std::vector<int64_t>{w.size(0), 8});
    CHECK(b.abs().max().item<double>() == 0.0);
    // kaiming_uniform with a = sqrt(5): U(-1/sqrt(in), 1/sqrt(in)); 256+ draws reach past half of it.
    const double bound = 1.0 / std::sqrt(static_cast<double>(w.size(1)));
    CHECK(a.abs().max().item<double>() <= bound);
    CHECK(a.abs().max().item<double>() > 0.5 * bound);
    // Only the adapters and the named new parameter train.
    long long trainable = 0;
    for (const auto& p : params) {
      const bool adapter = p.key().find(".lora_") != std::string::npos;
      INFO(p.key());
      CHECK(p.value().requires_grad() == (adapter || p.key() == "classifier.bias"));
      trainable += p.value().requires_grad() ? p.value().numel() : 0;
    }
    CHECK(report.trainable == trainable);
    CHECK(report.trained_in_full == std::vector<std::string>{"classifier.bias"});
    // B = 0: the adapted model's logits are the base's, exactly (y + 0 * ... = y).
    torch::NoGradGuard no_grad;
    CHECK(torch::equal(adapted->forward(batch).logits, base->forward(batch).logits));
  }
}

TEST_CASE("lora: the adapter's product joins the packed path and the gradient reaches only what trains",
          "[model][lora]") {
  at::set_num_threads(1);
  for (const std::string family : {"bert", "distilbert", "deberta-v2"}) {
    INFO(family);
    const auto expected = token_expected(family);
    const ModelBatch batch = token_batch(expected, 0);
    auto padded = load_family(family), packed = load_family(family);
    attach_lora(*padded, settings(), family, {});
    attach_lora(*packed, settings(), family, {});
    {
      torch::NoGradGuard no_grad;
      auto from = padded->named_parameters();
      for (auto& p : packed->named_parameters())
        if (p.key().find(".lora_B.") != std::string::npos) {
          from[p.key()].normal_(0.0, 0.2);
          p.value().copy_(from[p.key()]);
        } else if (p.key().find(".lora_A.") != std::string::npos) {
          p.value().copy_(from[p.key()]);
        }
    }
    packed->set_execution(Execution::Unpadded);
    const ModelOutput want = padded->forward(batch), got = packed->forward(batch);
    const ModelOutput plain = load_family(family)->forward(batch);
    // On the real tokens (the packed path computes nothing at the padding), fp32
    // over 2 layers of K <= 64 sums in another order: the token tests' bound.
    const auto real = batch.attention_mask.ne(0).unsqueeze(-1).expand_as(want.logits);
    CHECK((want.logits.masked_select(real) - got.logits.masked_select(real)).abs().max().item<double>() <= 1e-5);
    CHECK((want.logits - plain.logits).abs().max().item<double>() > 1e-3);  // the adapters act
    got.loss.backward();
    for (const auto& p : packed->named_parameters()) {
      INFO(p.key());
      CHECK(p.value().grad().defined() == (p.key().find(".lora_") != std::string::npos));
    }
  }
}

TEST_CASE("lora: targets match the end of the dotted path; a name that matches nothing is refused",
          "[model][lora]") {
  auto bert = load_family("bert");
  CHECK(attach_lora(*bert, settings({"attention.self.query"}), "bert", {}).adapted.size() == 2);
  bert = load_family("bert");
  CHECK(attach_lora(*bert, settings({"dense"}), "bert", {}).adapted.size() == 6);  // 3 per layer
  bert = load_family("bert");
  const std::string partial = refusal(*bert, settings({"elf.query"}), "bert");
  CHECK_THAT(partial, Catch::Contains("lora.target_modules") && Catch::Contains("\"elf.query\" names no module"));
  bert = load_family("bert");
  const std::string typo = refusal(*bert, settings({"quer"}), "bert");
  CHECK_THAT(typo, Catch::Contains("did you mean \"query\"") &&
                       Catch::Contains("Linear modules: query, key, value, dense, classifier"));
  auto distil = load_family("distilbert");
  CHECK_THAT(refusal(*distil, settings({"query"}), "distilbert"),
             Catch::Contains("q_lin, k_lin, v_lin, out_lin, lin1, lin2"));
  bert = load_family("bert");
  LoraSettings save = settings();
  save.modules_to_save = {"pooler"};
  CHECK_THAT(refusal(*bert, save, "bert"), Catch::Contains("lora.modules_to_save") &&
                                               Catch::Contains("\"pooler\" names no module"));
  // An unknown family without target_modules is told to name them.
  bert = load_family("bert");
  CHECK_THAT(refusal(*bert, settings(), "plugin-family"), Catch::Contains("no preset"));
}

TEST_CASE("lora: modules_to_save, bias and rsLoRA choose what trains and the scale", "[model][lora]") {
  auto bert = load_family("bert");
  LoraSettings s = settings();
  s.modules_to_save = {"classifier"};
  s.bias = LoraBias::LoraOnly;
  LoraReport r = attach_lora(*bert, s, "bert", {});
  CHECK(r.trained_in_full == std::vector<std::string>{
                                 "bert.encoder.layer.0.attention.self.query.bias",
                                 "bert.encoder.layer.0.attention.self.value.bias",
                                 "bert.encoder.layer.1.attention.self.query.bias",
                                 "bert.encoder.layer.1.attention.self.value.bias", "classifier.weight",
                                 "classifier.bias"});
  CHECK(peft_modules_to_save(*bert, {"classifier.weight", "classifier.bias"}) == std::vector<std::string>{"classifier"});
  s.r = 16;
  s.alpha = 32;
  CHECK(s.scale() == 2.0);
  s.rslora = true;
  CHECK(s.scale() == 8.0);  // 32 / sqrt(16)
  auto roberta = load_family("roberta");
  s = settings();
  s.bias = LoraBias::All;
  r = attach_lora(*roberta, s, "roberta", {});
  for (const auto& name : r.trained_in_full) CHECK(name.substr(name.size() - 4) == "bias");
  CHECK(r.trained_in_full.size() > 10);
}

TEST_CASE("lora: the PEFT export of an adapted token model", "[model][lora]") {
  // Writes build/test-tmp/lora_export/<family>/ for scripts/golden/lora_export_check.py, which
  // recorded PEFT's logits for these very adapters in tests/model/golden/lora/export_check.json.
  at::set_num_threads(1);
  const std::string root = tmp_dir("lora_export");
  std::ifstream check_in(source_dir() + "/tests/model/golden/lora/export_check.json");
  const nlohmann::json check = check_in ? nlohmann::json::parse(check_in) : nlohmann::json();
  for (const std::string family : {"bert", "distilbert", "roberta", "deberta-v2"}) {
    INFO(family);
    auto model = load_family(family);
    LoraSettings s = settings();
    s.r = 4;
    s.modules_to_save = {"classifier"};
    const LoraReport report = attach_lora(*model, s, family, {});
    {
      // Fixed draws, so that the export is the same file every time.
      torch::NoGradGuard no_grad;
      torch::manual_seed(11);
      for (auto& p : model->named_parameters())
        if (p.key().find(".lora_") != std::string::npos) p.value().normal_(0.0, 0.2);
    }
    const std::string dir = root + "/" + family;
    write_peft_adapter(*model, AdapterExport{s, report, token_golden("tiny_" + family), "TOKEN_CLS"}, dir);
    std::set<std::string> keys;
    for (const auto& [key, tensor] : read_weights(dir + "/adapter_model.safetensors")) keys.insert(key);
    std::set<std::string> want;
    for (const auto& path : report.adapted) {
      want.insert("base_model.model." + path + ".lora_A.weight");
      want.insert("base_model.model." + path + ".lora_B.weight");
    }
    for (const auto& p : model->named_parameters())
      if (p.key().rfind("classifier.", 0) == 0) want.insert("base_model.model." + p.key());
    CHECK(keys == want);
    std::ifstream config_in(dir + "/adapter_config.json");
    const nlohmann::json config = nlohmann::json::parse(config_in);
    CHECK(config.at("modules_to_save") == nlohmann::json({"classifier"}));
    CHECK(config.at("target_modules") == nlohmann::json(lora_preset_targets(family)));
    torch::NoGradGuard no_grad;
    const torch::Tensor logits = model->forward(token_batch(token_expected(family), 0)).logits.to(torch::kFloat64);
    std::ofstream(dir + "/runner_logits.json") << nlohmann::json(tensor_rows(logits)).dump() << "\n";
    if (check.is_null()) continue;
    const auto& peft = check.at("families").at(family);
    CHECK(peft.at("missing_keys").empty());
    CHECK(peft.at("unexpected_keys").empty());
    // fp32 through the same ops as PEFT: the token goldens' bound.
    CHECK((logits - nested_logits(peft.at("peft_logits"))).abs().max().item<double>() <= 1e-5);
  }
}

TEST_CASE("lora: the merged model gives the adapter model's logits; a merge that is off is caught",
          "[model][lora]") {
  at::set_num_threads(1);
  for (const std::string family : {"bert", "distilbert", "roberta", "deberta-v2"}) {
    INFO(family);
    auto adapted = [&] {
      auto model = load_family(family);
      attach_lora(*model, settings(), family, {});
      torch::NoGradGuard no_grad;
      torch::manual_seed(11);  // B away from zero, so that the merge changes the weights
      for (auto& p : model->named_parameters())
        if (p.key().find(".lora_") != std::string::npos) p.value().normal_(0.0, 0.2);
      return model;
    };
    auto model = adapted();
    const MergeCheck merged = merge_and_compare(*model, [](TaskModel& m) { CHECK_FALSE(merge_lora(m).empty()); });
    CHECK(merged.passed());
    for (const auto& p : model->named_parameters()) CHECK(p.key().find(".lora_") == std::string::npos);
    WARN(family << ": merged logits within " << merged.difference << " (bound " << merged.bound << ")");
    // One merged weight 1e-4 relative off: far past float32 rounding.
    auto off = adapted();
    const MergeCheck caught = merge_and_compare(*off, [](TaskModel& m) {
      const std::vector<std::string> paths = merge_lora(m);
      torch::NoGradGuard no_grad;
      m.named_parameters()[paths.front() + ".weight"].mul_(1 + 1e-4);
    });
    CHECK_FALSE(caught.passed());
  }
}
