#include "recipe/rules.h"

#include "recipe/sections.h"

#include "util/cpu_info.h"
#include "util/paths.h"
#include "util/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace runner {

// The run directory is <output_dir>/<name>/<time>-<id>, a sweep's points
// <output_dir>/<name>/<point>: a name with a slash or a dot-dot would put them
// elsewhere, so the name must be one plain folder name.
std::string folder_name_problem(const std::string& name) {
  if (name == "." || name == "..") return "is \"" + name + "\", which names a folder that already exists";
  if (name.find('/') != std::string::npos) return "contains \"/\"";
  for (unsigned char ch : name)
    if (ch < 0x20 || ch == 0x7f) return fmt::format("contains the control character 0x{:02x}", ch);
  if (name.size() > 200) return fmt::format("is {} bytes long", name.size());
  return {};
}

namespace {

struct RuleContext {
  const nlohmann::ordered_json& r;
  const Value& tree;
  const Capabilities& caps;
  const Registry& reg;
  Diagnostics& diags;

  const Value* find(const std::string& section, const std::string& key) const {
    const Value* s = tree.find(section);
    return s && s->is_table() ? s->find(key) : nullptr;
  }
  SourceLocation where(const std::string& section, const std::string& key) const {
    if (const Value* v = find(section, key)) return v->loc;
    if (const Value* s = tree.find(section)) return s->loc;
    return tree.loc;
  }
  std::string str(const std::string& section, const std::string& key) const {
    return r.at(section).at(key).get<std::string>();
  }
  void error(const std::string& section, const std::string& key, std::string msg, std::string hint) {
    diags.push_back(make_error(where(section, key), section + "." + key, std::move(msg), std::move(hint)));
  }
  void warning(const std::string& section, const std::string& key, std::string msg, std::string hint) {
    Diagnostic d = make_error(where(section, key), section + "." + key, std::move(msg), std::move(hint));
    d.severity = Severity::Warning;
    diags.push_back(d);
  }
  bool trains_on_cpu() const {
    std::string device = str("run", "device");
    return device == "cpu" || (device == "auto" && !caps.cuda_available);
  }
};

void warmup_given_twice(RuleContext& c) {
  const Value* steps = c.find("scheduler", "warmup_steps");
  const Value* ratio = c.find("scheduler", "warmup_ratio");
  // Zero means "not used", so a printed (fully resolved) recipe stays valid.
  bool steps_used = steps && steps->type == Value::Type::Int && steps->i > 0;
  bool ratio_used = ratio && ((ratio->type == Value::Type::Float && ratio->f > 0) ||
                              (ratio->type == Value::Type::Int && ratio->i > 0));
  if (steps_used && ratio_used)
    c.error("scheduler", "warmup_ratio",
            "both warmup_steps and warmup_ratio are set (warmup_steps at " + steps->loc.str() + ")",
            "keep one of them: warmup_steps counts optimizer steps, warmup_ratio is a fraction of all steps");
}

// fp16 on a CPU: an error where the recipe pins the CPU; with device = "auto",
// the recipe is valid for a GPU machine (as device = "cuda" is on a login node)
// and said, since `runner run` here refuses it at setup.
void fp16_fits_device(RuleContext& c) {
  if (c.str("train", "precision") != "fp16" || !c.trains_on_cpu()) return;
  const bool pinned = c.str("run", "device") == "cpu";
  // Where bf16 would be emulated (precision_fits_device's warning), fp32 is the fast choice.
  const std::string fix = std::string(c.caps.native_bf16 ? "use precision = \"bf16\" on this CPU"
                                                         : "use precision = \"fp32\" on this CPU (it has no native bf16)") +
                          (pinned ? ", or set run.device = \"auto\" and train on a GPU machine" : "");
  std::string what = "fp16 needs a CUDA device, but this run trains on the CPU (run.device = \"" +
                     c.str("run", "device") + "\"" + (pinned ? "" : ", and this machine has no usable GPU") + ")";
  if (pinned) return c.error("train", "precision", what, fix);
  c.warning("train", "precision",
            what + ": valid for a GPU machine, but `runner run` here refuses it at setup (exit code 2, before "
                   "any run directory exists)",
            fix);
}

void precision_fits_device(RuleContext& c) {
  std::string precision = c.str("train", "precision");
  fp16_fits_device(c);
  if (precision == "bf16" && c.trains_on_cpu() && !c.caps.native_bf16)
    c.warning("train", "precision",
              "this CPU has no native bf16 instructions (AVX512-BF16/AMX): bf16 autocast runs "
              "emulated, about 30x slower than fp32",
              "use precision = \"fp32\" on this machine");
  if (c.str("run", "device") == "cuda" && !c.caps.cuda_available)
    c.warning("run", "device",
              c.caps.cuda_build ? "no CUDA device is visible on this machine"
                                : "this runner is built without CUDA (CPU-only LibTorch)",
              // Valid, since a login node without a GPU validates GPU recipes; run's require_device refuses it.
              "the recipe is valid for a GPU machine, but `runner run` here refuses it at setup (exit code 2, "
              "before any run directory exists); use device = \"auto\" to fall back to the CPU");
}

// A model family may be unable to run under CPU bf16 autocast at all (its
// component says why); refusing here beats a failure at the first step.
void model_fits_precision(RuleContext& c) {
  if (c.str("train", "precision") != "bf16" || !c.trains_on_cpu()) return;
  if (!c.r.at("model").contains("type")) return;  // an unknown model, reported already
  const Component* model = c.reg.find(Kind::Model, c.str("model", "type"));
  if (!model || model->spec.cpu_bf16_refusal.empty()) return;
  c.error("train", "precision",
          "model \"" + model->spec.name + "\" cannot train under bf16 autocast on a CPU: " +
              model->spec.cpu_bf16_refusal,
          "use precision = \"fp32\" on the CPU for this model (bf16 works on CUDA)");
}

void topology_fits_build(RuleContext& c) {
  if (c.str("topology", "offload") == "optimizer" && (!c.caps.cuda_build || c.trains_on_cpu()))
    c.error("topology", "offload",
            "offload = \"optimizer\" moves optimizer state off the GPU, but " +
                std::string(c.caps.cuda_build ? "this run trains on the CPU"
                                              : "this is a CPU build of the runner"),
            "remove topology.offload (optimizer state already lives in host memory on a CPU)");
  if (c.str("topology", "backend") == "nccl" && (!c.caps.cuda_build || c.trains_on_cpu()))
    c.error("topology", "backend", "the nccl backend needs CUDA devices",
            "use backend = \"gloo\" (or \"auto\") on CPUs");
}

// As with a missing GPU: valid (a login node validates for the job's environment),
// but said here, since `runner run` refuses it at setup.
void loggers_fit_environment(RuleContext& c) {
  const auto& loggers = c.r.at("run").at("loggers");
  if (c.caps.mlflow_problem.empty() || std::find(loggers.begin(), loggers.end(), "mlflow") == loggers.end())
    return;
  c.warning("run", "loggers",
            "run.loggers has \"mlflow\", but " + c.caps.mlflow_problem +
                ": `runner run` in this environment refuses it at setup (exit code 2, before any run "
                "directory exists)",
            c.caps.mlflow_fix);
}

void components_exist(RuleContext& c) {
  const auto& loggers = c.r.at("run").at("loggers");
  std::vector<std::string> known = c.reg.names(Kind::Logger);
  for (const auto& l : loggers) {
    std::string name = l.get<std::string>();
    if (!c.reg.find(Kind::Logger, name))
      c.error("run", "loggers", "unknown logger \"" + name + "\" (known loggers: " + join(known) + ")",
              did_you_mean(name, known));
  }
  std::string metric = c.str("train", "metric_for_best");
  if (metric.empty()) return;
  std::vector<std::string> metrics = {"eval.loss"};
  for (const auto& m : c.reg.names(Kind::Metric)) metrics.push_back("eval." + m);
  bool known_metric = false;
  for (const auto& m : metrics) known_metric |= m == metric;
  // A metric command names its own metrics when it runs: any eval.<name> may be one of them.
  const auto command = c.r.at("train").find("metric_command");
  if (command != c.r.at("train").end() && command->is_array() && !command->empty() && metric.rfind("eval.", 0) == 0)
    known_metric = true;
  // "f1" is how the Trainer and the evaluate library name it; here it is an eval metric's.
  std::string hint = did_you_mean(metric, metrics);
  if (std::find(metrics.begin(), metrics.end(), "eval." + metric) != metrics.end())
    hint = "did you mean \"eval." + metric + "\"?";
  if (!known_metric)
    c.error("train", "metric_for_best", "unknown metric \"" + metric + "\" (known: " + join(metrics) + ")",
            hint);
}

// greater_is_better = true over a metric whose name says lower is better (its
// derived default is false): the run would keep its worst checkpoint as "best"
// and stop early while the loss falls. Valid, since a user may mean it, but said.
void loss_not_maximised(RuleContext& c) {
  const Value* given = c.find("train", "greater_is_better");
  if (!given || given->type != Value::Type::Bool || !given->b) return;
  const OptionSpec* spec = find_option(find_section("train")->options, "greater_is_better");
  nlohmann::json train = nlohmann::json::parse(c.r.at("train").dump());
  if (!spec || !spec->derived_default || spec->derived_default(train) != false) return;
  c.warning("train", "greater_is_better",
            "greater_is_better = true maximises metric_for_best = \"" + c.str("train", "metric_for_best") +
                "\", a loss: the highest loss would be kept as the best checkpoint, and early stopping "
                "would wait for the loss to rise",
            "remove greater_is_better (a metric whose name ends in \"loss\" is lower-is-better), or set it "
            "to false");
}

// A class weight scales its examples' loss, as float32: a negative one rewards
// the wrong class, all zeros make the weighted mean 0/0, and one past 1e30
// lets a batch's sum of weights pass float32's 3.4e38 (room for 3.4e8
// examples). Each ends as a NaN loss that names no weight.
void class_weights_usable(RuleContext& c) {
  const nlohmann::ordered_json& train = c.r.at("train");
  if (!train.contains("class_weights") || !train.at("class_weights").is_array()) return;
  const nlohmann::ordered_json& weights = train.at("class_weights");
  if (weights.empty()) return;
  constexpr double kMaxWeight = 1e30;
  bool any_positive = false;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double w = weights[i].is_number() ? weights[i].get<double>() : std::nan("");
    any_positive = any_positive || w > 0;
    if (std::isfinite(w) && w >= 0 && w <= kMaxWeight) continue;
    return c.error("train", "class_weights",
                   fmt::format("weight {} (class {}) is {}: each weight must be from 0 to 1e30", weights[i].dump(), i,
                               w < 0 ? "negative" : "too large for a float32 loss"),
                   "write a weight from 0 to 1e30 for each class (e.g. [1.0, 3.0] to count the second class 3 "
                   "times), or class_weighting = \"balanced\"");
  }
  if (!any_positive)
    c.error("train", "class_weights", "every weight is 0: the weighted loss would be 0 / 0",
            "give at least one class a weight above 0, or remove class_weights");
}

void run_name_is_a_folder_name(RuleContext& c) {
  std::string name = c.str("run", "name");
  std::string problem = folder_name_problem(name);
  if (!problem.empty())
    c.error("run", "name",
            "the run name " + problem + "; it must be one folder name under run.output_dir",
            "use letters, digits, \"-\", \"_\" and \".\" (at most 200 bytes); set run.output_dir to "
            "choose where runs go");
}

// The deepest path a run writes below <output_dir>/<name>: "/<time>-<id>/
// checkpoints/step-<8 digits>/model.safetensors.tmp" and room to spare.
constexpr size_t kRunDirDepthBytes = 100;

// Validate must not say "valid" for an output folder the run cannot create:
// past the system's limits the run would die on the file system's raw message.
void output_dir_fits_path_limits(RuleContext& c) {
  std::string dir = c.str("run", "output_dir");
  std::string problem = path_length_problem(dir);
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(dir, ec).string();
  size_t deepest = absolute.size() + 1 + c.str("run", "name").size() + kRunDirDepthBytes;
  if (problem.empty() && deepest > kMaxPathBytes)
    problem = fmt::format("the paths a run writes under it would be up to {} bytes long (with the run name and "
                          "its checkpoints); this system allows at most {} (PATH_MAX)",
                          deepest, kMaxPathBytes);
  if (!problem.empty()) c.error("run", "output_dir", problem, "set run.output_dir to a shorter path");
}

void threads_fit_machine(RuleContext& c) {
  long long threads = c.r.at("run").at("threads").get<long long>();
  int cpus = usable_cpus();
  if (threads > cpus)
    c.warning("run", "threads",
              fmt::format("threads = {}, but this process may use {} CPU{}: the run uses {}", threads, cpus,
                          cpus == 1 ? "" : "s", cpus),
              "set threads = 0 (every usable CPU) or at most " + std::to_string(cpus));
}

// The best checkpoint is picked by evaluations: without an eval split there is
// none to load at the end.
void best_needs_evaluation(RuleContext& c) {
  if (!c.r.at("train").value("load_best_at_end", false) || !c.str("data", "eval_split").empty()) return;
  c.error("train", "load_best_at_end",
          "load_best_at_end = true, but data.eval_split is empty: no evaluation picks a best checkpoint",
          "set data.eval_split to a labelled split (e.g. \"dev\"), or remove load_best_at_end");
}

// A [lora] section with settings but no `enabled` would train every weight
// unseen; enabled = false written out keeps it off on purpose.
void lora_is_switched_on(RuleContext& c) {
  const Value* lora = c.tree.find("lora");
  if (!lora || !lora->is_table() || lora->find("enabled") || lora->table.empty()) return;
  c.error("lora", "enabled",
          "the [lora] section sets " + lora->table.begin()->first + " but does not switch LoRA on",
          "add enabled = true to [lora] (or enabled = false to keep every weight training)");
}

// Each selected component's own check of the whole recipe (a model's size
// against this machine's memory, its positions against data.max_length, its
// weight files). It runs after other rules failed too, so that every error comes
// in one pass; a check that cannot read what another error left malformed then
// adds nothing.
void components_check_recipe(RuleContext& c) {
  const bool other_errors = has_errors(c.diags);
  for (const auto& section : recipe_sections()) {
    if (!section.component_kind || !c.r.contains(section.name)) continue;
    const auto& resolved = c.r.at(section.name);
    if (!resolved.is_object() || !resolved.contains(section.selector_key)) continue;
    const Component* comp = c.reg.find(*section.component_kind, resolved.at(section.selector_key));
    if (!comp || !comp->spec.recipe_check) continue;
    Diagnostics found;
    try {
      found = comp->spec.recipe_check(nlohmann::json::parse(c.r.dump()));
    } catch (const std::exception&) {
      if (!other_errors) throw;
    }
    for (Diagnostic d : found) {
      std::string sec = d.key_path.substr(0, d.key_path.find('.'));
      std::string key = d.key_path.find('.') == std::string::npos ? "" : d.key_path.substr(d.key_path.find('.') + 1);
      if (!d.where.known()) d.where = c.where(sec, key);
      c.diags.push_back(std::move(d));
    }
  }
}

}  // namespace

void check_recipe_rules(const nlohmann::ordered_json& resolved, const Value& tree,
                        const Capabilities& caps, const Registry& reg, Diagnostics& diags) {
  RuleContext c{resolved, tree, caps, reg, diags};
  warmup_given_twice(c);
  precision_fits_device(c);
  model_fits_precision(c);
  topology_fits_build(c);
  components_exist(c);
  loss_not_maximised(c);
  loggers_fit_environment(c);
  run_name_is_a_folder_name(c);
  class_weights_usable(c);
  output_dir_fits_path_limits(c);
  threads_fit_machine(c);
  best_needs_evaluation(c);
  lora_is_switched_on(c);
  // Last: a component's check may build its configuration from every section.
  components_check_recipe(c);
}

}  // namespace runner
