#include "recipe/foreign_names.h"

#include <fmt/format.h>

namespace runner {

const std::vector<ForeignName>& foreign_names() {
  static const std::vector<ForeignName> names = {
      {"learning_rate", "Trainer", "optimizer.lr", "2e-5"},
      {"lr", "Trainer", "optimizer.lr", "2e-5"},
      {"weight_decay", "Trainer", "optimizer.weight_decay", "0.01"},
      {"adam_beta1", "Trainer", "optimizer.betas", "[0.9, 0.999]"},
      {"adam_beta2", "Trainer", "optimizer.betas", "[0.9, 0.999]"},
      {"adam_epsilon", "Trainer", "optimizer.eps", "1e-8"},
      {"optim", "Trainer", "optimizer.type", "\"adamw\""},
      {"lr_scheduler_type", "Trainer", "scheduler.type", "\"linear\""},
      {"warmup_ratio", "Trainer", "scheduler.warmup_ratio", "0.1"},
      {"warmup_steps", "Trainer", "scheduler.warmup_steps", "100"},
      {"per_device_train_batch_size", "Trainer", "data.train_batch_size", "32"},
      {"per_gpu_train_batch_size", "Trainer", "data.train_batch_size", "32"},
      {"train_batch_size", "Trainer", "data.train_batch_size", "32"},
      {"batch_size", "Trainer", "data.train_batch_size", "32"},
      {"per_device_eval_batch_size", "Trainer", "data.eval_batch_size", "64"},
      {"per_gpu_eval_batch_size", "Trainer", "data.eval_batch_size", "64"},
      {"eval_batch_size", "Trainer", "data.eval_batch_size", "64"},
      {"max_seq_length", "Trainer", "data.max_length", "128"},
      {"max_length", "Trainer", "data.max_length", "128"},
      {"task_name", "Trainer", "data.dataset", "\"glue/mrpc\""},
      {"num_train_epochs", "Trainer", "train.epochs", "3"},
      {"epochs", "Trainer", "train.epochs", "3"},
      {"max_steps", "Trainer", "train.max_steps", "1000"},
      {"gradient_accumulation_steps", "Trainer", "train.grad_accum", "4"},
      {"max_grad_norm", "Trainer", "train.max_grad_norm", "1.0"},
      {"fp16", "Trainer", "train.precision", "\"fp16\""},
      {"bf16", "Trainer", "train.precision", "\"bf16\""},
      {"mixed_precision", "Accelerate", "train.precision", "\"bf16\""},
      {"logging_steps", "Trainer", "train.log_every", "50"},
      {"eval_steps", "Trainer", "train.eval_every", "100"},
      {"save_steps", "Trainer", "train.checkpoint_every", "500"},
      {"save_total_limit", "Trainer", "train.keep_last", "2"},
      {"metric_for_best_model", "Trainer", "train.metric_for_best", "\"f1\""},
      {"greater_is_better", "Trainer", "train.greater_is_better", "true"},
      {"early_stopping_patience", "Trainer", "train.early_stopping_patience", "3"},
      {"seed", "Trainer", "run.seed", "42"},
      {"output_dir", "Trainer", "run.output_dir", "\"runs\""},
      {"run_name", "Trainer", "run.name", "\"mrpc\""},
      {"report_to", "Trainer", "run.loggers", "[\"console\", \"jsonl\", \"tensorboard\"]"},
      {"full_determinism", "Trainer", "run.deterministic", "true"},
      {"use_cpu", "Trainer", "run.device", "\"cpu\""},
      {"no_cuda", "Trainer", "run.device", "\"cpu\""},
      {"cpu", "Accelerate", "run.device", "\"cpu\""},
      {"model_name_or_path", "Trainer", "model.pretrained", "\"bert-base-uncased\""},
      {"tokenizer_name", "Trainer", "tokenizer.path", "\"bert-base-uncased\""},
      {"do_lower_case", "Trainer", "tokenizer.lowercase", "true"},
      {"num_processes", "Accelerate", "topology.processes_per_node", "2"},
      {"nproc_per_node", "Accelerate", "topology.processes_per_node", "2"},
      {"num_machines", "Accelerate", "topology.nodes", "2"},
      {"nnodes", "Accelerate", "topology.nodes", "2"},
      {"ddp_backend", "Trainer", "topology.backend", "\"gloo\""},
      {"ddp_timeout", "Trainer", "topology.timeout_s", "1800"},
  };
  return names;
}

const ForeignName* find_foreign_name(const std::string& name) {
  for (const auto& f : foreign_names())
    if (f.name == name) return &f;
  return nullptr;
}

std::string foreign_name_hint(const std::string& name) {
  const ForeignName* f = find_foreign_name(name);
  if (!f) return "";
  size_t dot = f->runner_key.find('.');
  std::string section = f->runner_key.substr(0, dot), option = f->runner_key.substr(dot + 1);
  std::string set_value = f->example;  // --set takes strings without quotes
  if (set_value.size() >= 2 && set_value.front() == '"' && set_value.back() == '"')
    set_value = set_value.substr(1, set_value.size() - 2);
  if (set_value.find(' ') != std::string::npos) set_value = "'" + set_value + "'";
  return fmt::format("Hugging Face's \"{}\" ({}) is {} here: write {} = {} under [{}], or --set {}={}", f->name,
                     f->from, f->runner_key, option, f->example, section, f->runner_key, set_value);
}

}  // namespace runner
