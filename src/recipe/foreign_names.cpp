#include "recipe/foreign_names.h"

#include "recipe/emit.h"
#include "recipe/parse.h"
#include "recipe/sections.h"
#include "recipe/unsupported.h"
#include "registry/registry.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace runner {

const std::vector<ForeignName>& foreign_names() {
  using M = ValueMapping;
  static const std::vector<ForeignName> names = {
      {"learning_rate", "Trainer", "optimizer.lr", "2e-5"},
      {"weight_decay", "Trainer", "optimizer.weight_decay", "0.01"},
      {"adam_beta1", "Trainer", "optimizer.betas", "[0.9, 0.999]", M::FirstBeta},
      {"adam_beta2", "Trainer", "optimizer.betas", "[0.9, 0.999]", M::SecondBeta},
      {"adam_epsilon", "Trainer", "optimizer.eps", "1e-8"},
      {"optim", "Trainer", "optimizer.type", "\"adamw\"", M::OptimizerName},
      {"lr_scheduler_type", "Trainer", "scheduler.type", "\"linear\""},
      {"warmup_ratio", "Trainer", "scheduler.warmup_ratio", "0.1"},
      {"warmup_steps", "Trainer", "scheduler.warmup_steps", "100"},
      {"per_device_train_batch_size", "Trainer", "data.train_batch_size", "32"},
      {"per_gpu_train_batch_size", "Trainer", "data.train_batch_size", "32"},
      {"batch_size", "Accelerate", "data.train_batch_size", "32"},
      {"per_device_eval_batch_size", "Trainer", "data.eval_batch_size", "64"},
      {"per_gpu_eval_batch_size", "Trainer", "data.eval_batch_size", "64"},
      {"max_seq_length", "Trainer", "data.max_length", "128"},
      {"task_name", "Trainer", "data.dataset", "\"glue/mrpc\"", M::GlueTask},
      {"num_train_epochs", "Trainer", "train.epochs", "3"},
      {"num_epochs", "Accelerate", "train.epochs", "3"},
      {"max_steps", "Trainer", "train.max_steps", "1000"},
      {"gradient_accumulation_steps", "Trainer", "train.grad_accum", "4", M::Steps},
      {"max_grad_norm", "Trainer", "train.max_grad_norm", "1.0"},
      {"fp16", "Trainer", "train.precision", "\"fp16\"", M::PrecisionFlag},
      {"bf16", "Trainer", "train.precision", "\"bf16\"", M::PrecisionFlag},
      {"mixed_precision", "Accelerate", "train.precision", "\"bf16\"", M::MixedPrecision},
      {"logging_steps", "Trainer", "train.log_every", "50", M::Steps},
      {"eval_steps", "Trainer", "train.eval_every", "100", M::Steps},
      {"eval_strategy", "Trainer", "train.eval_each_epoch", "true", M::EvalStrategy},
      {"evaluation_strategy", "Trainer", "train.eval_each_epoch", "true", M::EvalStrategy},
      {"save_strategy", "Trainer", "train.checkpoint_every_minutes", "0", M::SaveStrategy},
      {"save_steps", "Trainer", "train.checkpoint_every", "500", M::Steps},
      {"save_total_limit", "Trainer", "train.keep_last", "2", M::Steps},
      {"metric_for_best_model", "Trainer", "train.metric_for_best", "\"eval.f1\"", M::MetricName},
      {"greater_is_better", "Trainer", "train.greater_is_better", "true"},
      {"early_stopping_patience", "Trainer", "train.early_stopping_patience", "3", M::Steps},
      {"load_best_model_at_end", "Trainer", "train.load_best_at_end", "true"},
      {"label_smoothing_factor", "Trainer", "train.label_smoothing", "0.1"},
      {"gradient_checkpointing", "Trainer", "model.gradient_checkpointing", "true"},
      {"seed", "Trainer", "run.seed", "42"},
      {"output_dir", "Trainer", "run.output_dir", "\"runs\""},
      {"run_name", "Trainer", "run.name", "\"mrpc\""},
      {"report_to", "Trainer", "run.loggers", "[\"console\", \"jsonl\", \"tensorboard\"]", M::LoggerList},
      {"full_determinism", "Trainer", "run.deterministic", "true"},
      {"use_cpu", "Trainer", "run.device", "\"cpu\"", M::CpuFlag},
      {"no_cuda", "Trainer", "run.device", "\"cpu\"", M::CpuFlag},
      {"cpu", "Accelerate", "run.device", "\"cpu\"", M::CpuFlag},
      {"model_name_or_path", "Trainer", "model.pretrained", "\"bert-base-uncased\""},
      {"tokenizer_name", "Trainer", "tokenizer.path", "\"bert-base-uncased\""},
      {"do_lower_case", "Trainer", "tokenizer.lowercase", "\"true\"", M::FlagAsChoice},
      {"num_processes", "Accelerate", "topology.processes_per_node", "2", M::Steps},
      {"nproc_per_node", "Accelerate", "topology.processes_per_node", "2", M::Steps},
      {"num_machines", "Accelerate", "topology.nodes", "2", M::Steps},
      {"nnodes", "Accelerate", "topology.nodes", "2", M::Steps},
      {"ddp_backend", "Trainer", "topology.backend", "\"gloo\""},
      {"ddp_timeout", "Trainer", "topology.timeout_s", "1800"},
      {"use_peft", "PEFT", "lora.enabled", "true"},
      {"lora_r", "PEFT", "lora.r", "8"},
      {"lora_rank", "PEFT", "lora.r", "8"},
      {"lora_alpha", "PEFT", "lora.alpha", "16"},
      {"lora_dropout", "PEFT", "lora.dropout", "0.1"},
      {"use_rslora", "PEFT", "lora.rslora", "true"},
      {"version_2_with_negative", "run_qa.py", "data.version", "\"2.0\"", M::SquadVersion},
      {"doc_stride", "run_qa.py", "data.doc_stride", "128"},
      {"n_best_size", "run_qa.py", "data.n_best_size", "20"},
      {"max_answer_length", "run_qa.py", "data.max_answer_length", "30"},
      {"null_score_diff_threshold", "run_qa.py", "data.null_score_diff_threshold", "0.0"},
      {"label_all_tokens", "run_ner.py", "data.label_all_tokens", "true"},
  };
  return names;
}

const ForeignName* find_foreign_name(const std::string& name) {
  for (const auto& f : foreign_names())
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

using ojson = nlohmann::ordered_json;

bool is_number(const Value& v) { return v.type == Value::Type::Int || v.type == Value::Type::Float; }
double number_of(const Value& v) { return v.type == Value::Type::Int ? double(v.i) : v.f; }

std::optional<ojson> whole_steps(const Value& v) {
  if (v.type == Value::Type::Int) return ojson(v.i);
  if (v.type == Value::Type::Float && std::isfinite(v.f) && v.f >= 1 && v.f == std::floor(v.f) && v.f < 1e15)
    return ojson(static_cast<long long>(v.f));
  return std::nullopt;
}

std::optional<ojson> metric_name(const std::string& m) {
  if (m.empty()) return std::nullopt;
  if (m.rfind("eval.", 0) == 0) return ojson(m);
  if (m.rfind("eval_", 0) == 0 || m.rfind("eval/", 0) == 0) return ojson("eval." + m.substr(5));
  return ojson("eval." + m);
}

std::optional<ojson> glue_task(std::string task) {
  if (task.empty()) return std::nullopt;
  for (char& c : task) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (task.rfind("glue/", 0) == 0) return ojson(task);
  if (task == "sst-2") task = "sst2";
  if (task == "sts-b") task = "stsb";
  return ojson("glue/" + task);
}

std::optional<ojson> betas(const Value& v, bool first) {
  if (!is_number(v)) return std::nullopt;
  // The other beta keeps the Trainer's (and the runner's) default.
  return first ? ojson::array({number_of(v), 0.999}) : ojson::array({0.9, number_of(v)});
}

std::optional<ojson> optimizer_name(const std::string& optim) {
  // The Trainer's AdamW variants (adamw_torch, adamw_hf, adamw_torch_fused ...) are one AdamW here.
  if (optim.rfind("adamw", 0) == 0) return ojson("adamw");
  if (optim == "adam" || optim == "sgd") return ojson(optim);
  return std::nullopt;
}

std::optional<ojson> mixed_precision(const std::string& p) {
  if (p == "no") return ojson("fp32");
  if (p == "fp16" || p == "bf16") return ojson(p);
  return std::nullopt;
}

// The Trainer's report_to integrations the runner has a logger for (run/loggers.cpp).
bool runner_has_logger(const std::string& name) { return name == "tensorboard" || name == "mlflow"; }

// The report_to names the runner has no logger for ("wandb", "comet_ml" ...).
std::vector<std::string> unsupported_loggers(const Value& v) {
  std::vector<std::string> out;
  auto check = [&](const Value& item) {
    if (item.type == Value::Type::String && item.s != "all" && item.s != "none" && item.s != "console" &&
        item.s != "jsonl" && !runner_has_logger(item.s))
      out.push_back(item.s);
  };
  if (v.type == Value::Type::List)
    for (const auto& item : v.list) check(item);
  else check(v);
  return out;
}

// The Trainer always prints to the console and keeps its own log; "none" turns off the
// integrations only. An integration the runner lacks is left out (the hint names it).
std::optional<ojson> logger_list(const Value& v) {
  ojson out = ojson::array({"console", "jsonl"});
  auto add = [&](const Value& item) {
    if (item.type != Value::Type::String || item.s == "all") return false;
    if (runner_has_logger(item.s)) out.push_back(item.s);
    return true;
  };
  if (v.type == Value::Type::List) {
    for (const auto& item : v.list)
      if (!add(item)) return std::nullopt;
    return out;
  }
  if (!add(v)) return std::nullopt;
  return out;
}

// The Trainer evaluates at epoch ends for "epoch" only; "steps" evaluates every
// eval_steps (train.eval_every), and "no" never.
std::optional<ojson> eval_strategy(const std::string& s) {
  if (s == "epoch") return ojson(true);
  if (s == "steps" || s == "no") return ojson(false);
  return std::nullopt;
}

// The Trainer saves every save_steps (train.checkpoint_every) for "steps" and
// never for "no"; the runner's own timed checkpoints are what is left to turn off.
// "epoch" is another key, train.checkpoint_each_epoch (foreign_name_hint).
std::optional<ojson> save_strategy(const std::string& s) {
  if (s == "steps" || s == "no") return ojson(0);
  return std::nullopt;
}

std::optional<ojson> string_mapping(const ForeignName& f, const std::string& s) {
  switch (f.mapping) {
    case ValueMapping::EvalStrategy: return eval_strategy(s);
    case ValueMapping::SaveStrategy: return save_strategy(s);
    case ValueMapping::MixedPrecision: return mixed_precision(s);
    case ValueMapping::MetricName: return metric_name(s);
    case ValueMapping::GlueTask: return glue_task(s);
    case ValueMapping::OptimizerName: return optimizer_name(s);
    default: return std::nullopt;
  }
}

std::optional<ojson> bool_mapping(const ForeignName& f, bool b) {
  if (f.mapping == ValueMapping::PrecisionFlag) return ojson(b ? f.name : "fp32");
  if (f.mapping == ValueMapping::CpuFlag) return ojson(b ? "cpu" : "auto");
  if (f.mapping == ValueMapping::FlagAsChoice) return ojson(b ? "true" : "false");
  if (f.mapping == ValueMapping::SquadVersion) return ojson(b ? "2.0" : "1.1");
  return std::nullopt;
}

// `3e-05`, `"fp16"` and `[0.9, 0.999]` as a recipe writes them; for --set, without
// quotes and a list as comma-separated items (shell-quoted where a space needs it).
std::string set_text(const ojson& v) {
  std::string s;
  if (v.is_string()) s = v.get<std::string>();
  else if (v.is_array())
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + set_text(v[i]);
  else s = emit_value(v, RecipeFormat::Toml);
  if (s.find_first_of(" \"'$`\\*?") != std::string::npos) s = "'" + s + "'";
  return s;
}

std::string write_hint(const std::string& runner_key, const ojson& value) {
  size_t dot = runner_key.find('.');
  std::string section = runner_key.substr(0, dot), option = runner_key.substr(dot + 1);
  return fmt::format("write {} = {} under [{}], or --set {}={}", option, emit_value(value, RecipeFormat::Toml),
                     section, runner_key, set_text(value));
}

}  // namespace

std::optional<ojson> runner_value(const ForeignName& f, const Value& given) {
  switch (given.type) {
    case Value::Type::String:
      if (f.mapping == ValueMapping::LoggerList) return logger_list(given);
      if (f.mapping == ValueMapping::Same) return ojson(given.s);
      return string_mapping(f, given.s);
    case Value::Type::Bool:
      if (f.mapping == ValueMapping::Same) return ojson(given.b);
      return bool_mapping(f, given.b);
    case Value::Type::Int:
    case Value::Type::Float:
      if (f.mapping == ValueMapping::Steps) return whole_steps(given);
      if (f.mapping == ValueMapping::FirstBeta || f.mapping == ValueMapping::SecondBeta)
        return betas(given, f.mapping == ValueMapping::FirstBeta);
      if (f.mapping != ValueMapping::Same || (given.type == Value::Type::Float && !std::isfinite(given.f)))
        return std::nullopt;
      return ojson::parse(given.to_json().dump());
    case Value::Type::List:
      if (f.mapping == ValueMapping::LoggerList) return logger_list(given);
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::string foreign_name_hint(const std::string& name, const Value* given) {
  const ForeignName* f = find_foreign_name(name);
  if (!f) return "";
  std::optional<ojson> value = given ? runner_value(*f, *given) : std::nullopt;
  if (!value && f->mapping == ValueMapping::SaveStrategy && given && given->type == Value::Type::String &&
      given->s == "epoch")
    return "Hugging Face's \"save_strategy\" = \"epoch\" (Trainer) is train.checkpoint_each_epoch here: " +
           write_hint("train.checkpoint_each_epoch", ojson(true));
  if (!value) value = ojson::parse(parse_toml_text("v = " + f->example, "").root->find("v")->to_json().dump());
  std::string missing;
  if (given && f->mapping == ValueMapping::LoggerList)
    for (const auto& l : unsupported_loggers(*given))
      missing += "; " + unsupported_feature(l).value_or(fmt::format(
                             "\"{}\" is not supported (the runner's loggers: console, jsonl, text, tensorboard, "
                             "mlflow; README, \"What it does not do\")", l));
  return fmt::format("Hugging Face's \"{}\" ({}) is {} here: {}{}", f->name, f->from, f->runner_key,
                     write_hint(f->runner_key, *value), missing);
}

std::string misplaced_option_hint(const std::string& name, const Value* given) {
  std::string key;
  for (const auto& section : recipe_sections())
    if (find_option(section.options, name)) {
      if (!key.empty()) return "";  // in several sections: no one answer
      key = section.name + "." + name;
    }
  if (key.empty()) return "";
  const OptionSpec& spec = *find_option(find_section(key.substr(0, key.find('.')))->options, name);
  ojson value = given && given->type != Value::Type::Table && given->type != Value::Type::Null
                    ? ojson::parse(given->to_json().dump())
                    : ojson::parse(spec.default_value.dump());
  return fmt::format("\"{}\" is {} here: {}", name, key, write_hint(key, value));
}

namespace {

// PEFT's LoraConfig as a section of its own ([peft], --set peft.r=8): the [lora] section here.
std::string peft_section_hint(const std::string& name) {
  if (name != "peft" && name != "lora_config" && name != "peft_config") return "";
  return "PEFT's LoraConfig is the [lora] section here: [lora] enabled = true, r = 8, alpha = 16, "
         "target_modules = [\"query\", \"value\"] (also dropout, rslora, modules_to_save, bias; docs/lora.md)";
}

// `name` under its own section where the section's component lacks it
// (doc_stride under a GLUE dataset): the components of that kind that have it.
std::string component_option_hint(const std::string& name, const std::string& path) {
  const SectionSpec* section = find_section(path.substr(0, path.find('.')));
  if (!section || !section->component_kind) return "";
  std::string owners;
  for (const Component* c : registry().list(*section->component_kind))
    if (find_option(c->spec.options, name)) owners += (owners.empty() ? "" : ", ") + c->spec.name;
  if (owners.empty()) return "";
  const std::string kind = kind_name(*section->component_kind);
  return fmt::format("\"{}\" is an option of the {}s {} only (`runner describe {} NAME` lists a {}'s options)", name,
                     kind, owners, kind, kind);
}

}  // namespace

std::string unknown_key_hint(const std::string& name, const Value* given, const std::string& path) {
  if (std::optional<std::string> missing = unsupported_feature(name)) return *missing;
  if (const ForeignName* f = find_foreign_name(name); f && f->runner_key == path)
    return component_option_hint(name, path);
  if (std::string peft = peft_section_hint(name); !peft.empty()) return peft;
  std::string hint = foreign_name_hint(name, given);
  return hint.empty() ? misplaced_option_hint(name, given) : hint;
}

Value set_text_value(const std::string& text) {
  ParsedFile parsed = parse_toml_text("v = " + text, "--set");
  if (parsed.root && !has_errors(parsed.diags))
    if (const Value* v = parsed.root->find("v")) return *v;
  return Value::make_string(text);
}

}  // namespace runner
