#include "wizard/init_recipe.h"

#include "data/glue_tasks.h"
#include "hub/glue_tasks.h"
#include "registry/registry.h"

#include <fmt/format.h>

#include <cctype>

namespace runner {

std::vector<std::string> offered_tasks() {
  std::vector<std::string> out;
  for (const auto& name : registry().names(Kind::Dataset))
    if (name.rfind("glue/", 0) == 0) out.push_back(name);
  out.push_back("conll");
  out.push_back("squad");
  return out;
}

std::vector<ModelOffer> offered_models() {
  std::vector<ModelOffer> out;
  for (const Component* c : registry().list(Kind::Model))
    for (const auto& o : c->spec.options)
      if (o.name == "preset")
        for (const auto& p : o.choices) out.push_back({c->spec.name, p});
  return out;
}

std::vector<std::string> offered_precisions(const Capabilities& caps, const std::string& device) {
  // "auto" trains where `runner run` would put it on this machine.
  bool gpu = (device == "cuda" || device == "auto") && caps.cuda_available;
  std::vector<std::string> out = {"fp32"};
  if (gpu || (device != "cuda" && caps.native_bf16)) out.push_back("bf16");
  if (gpu) out.push_back("fp16");
  return out;
}

// device "auto": the same recipe trains on a GPU machine's GPU and on a CPU machine's CPU.
InitChoices default_choices(const Capabilities&, const std::vector<PretrainedOffer>& installed) {
  InitChoices c;
  if (!installed.empty()) {
    c.pretrained = installed.front().name;
    c.model_type = installed.front().model_type;
    c.preset.clear();
  }
  return c;
}

namespace {

std::string model_lines(const InitChoices& c) {
  if (!c.pretrained.empty())
    return fmt::format("type = \"{}\"\npretrained = \"{}\"  # a Hugging Face folder or Hub id, found as "
                       "`runner fetch` finds it\n",
                       c.model_type, c.pretrained);
  return fmt::format("type = \"{}\"\npreset = \"{}\"  # architecture only, randomly initialised; set pretrained = "
                     "\"FOLDER\" to fine-tune weights\n",
                     c.model_type, c.preset);
}

// A pretrained model is read with the tokenizer it was trained with: its own folder's.
std::string tokenizer_path(const InitChoices& c) { return c.pretrained.empty() ? "bert-base-uncased" : c.pretrained; }

std::string run_name(const InitChoices& c) {
  std::string task = c.task.substr(c.task.find('/') + 1);
  std::string model = c.pretrained.empty() ? c.preset : c.pretrained.substr(c.pretrained.rfind('/') + 1);
  std::string name = task + "_" + model;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  return name;
}

// The metric the task's best checkpoint is picked by: GLUE's own (MRPC's F1, CoLA's MCC, ...).
std::string best_metric_of(const std::string& task) {
  if (task == "conll") return "entity_f1";  // seqeval's micro F1 over entities, as run_ner.py reports
  if (task == "squad") return "f1";         // SQuAD's F1, as run_qa.py reports
  if (task.rfind("glue/", 0) != 0 || !hub::find_glue_task(task.substr(5))) return "accuracy";
  return glue_task(task.substr(5)).info.main_metric;
}

std::string data_lines(const InitChoices& c) {
  if (c.task == "conll")
    return fmt::format("dataset = \"conll\"  # token classification: a token and its tag per line, a blank line "
                       "between sentences\ndir = \"{}\"  # train.conll and dev.conll; the tags come from "
                       "train.conll\nmax_length = 128\n",
                       c.data_dir);
  if (c.task == "squad") {
    const char* ext = c.squad_dataset == "squad_json" ? "json" : "jsonl";
    return fmt::format("dataset = \"{}\"  # extractive question answering, windowed as run_qa.py windows it\n"
                       "dir = \"{}\"  # train.{} and dev.{}\nversion = \"{}\"  # 2.0: a question may have no "
                       "answer\nmax_length = 384  # tokens of a window: the question, then a part of the context\n"
                       "doc_stride = 128  # tokens a window shares with the one before\n",
                       c.squad_dataset, c.data_dir, ext, ext, c.squad_version);
  }
  return fmt::format("dataset = \"{}\"  # GLUE files under $RUNNER_DATA (default ../shared/data)\nmax_length = 128\n",
                     c.task);
}

}  // namespace

std::string init_recipe_text(const InitChoices& c, const std::string& schema, const std::string& written_utc) {
  std::string out = schema.empty() ? "" : "#:schema " + schema + "\n";
  out += fmt::format(
      "# Written by `runner init` on {}. `runner validate FILE` checks it,\n"
      "# `runner print-config FILE` shows every option with its default, `runner FILE` trains.\n\n"
      "[run]\nname = \"{}\"  # runs go to runs/<name>/<UTC time>-<id>/\nseed = 42\n"
      "device = \"{}\"  # auto: a GPU when there is one, else the CPU\n\n"
      "[data]\n{}"
      "train_batch_size = {}  # per process\neval_batch_size = 64\n\n"
      "[tokenizer]\ntype = \"wordpiece\"\npath = \"{}\"  # {}\n\n"
      "[model]\n{}\n"
      "[optimizer]\ntype = \"adamw\"\nlr = {}\nweight_decay = 0.01\n\n"
      "[scheduler]\ntype = \"linear\"\nwarmup_ratio = 0.06  # of the optimizer steps\n\n"
      "[train]\nepochs = {}\nprecision = \"{}\"\nmax_grad_norm = 1.0\nmetric_for_best = \"eval.{}\"\n\n"
      "[topology]\nprocesses_per_node = {}  # `runner launch FILE` starts them; train_batch_size is per "
      "process\n",
      written_utc, run_name(c), c.device, data_lines(c), c.batch_size, tokenizer_path(c),
      c.pretrained.empty() ? "a tokenizer folder or Hub id" : "the model's own tokenizer", model_lines(c),
      // Fine-tuning pretrained weights wants the usual small rate; random initialisation a larger one.
      c.pretrained.empty() ? "1e-4" : "2e-5", c.epochs, c.precision, best_metric_of(c.task),
      c.processes);
  return out;
}

}  // namespace runner
