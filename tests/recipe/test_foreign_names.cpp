// A user coming from Hugging Face writes the Trainer's,
// Accelerate's and PEFT's names; each one is answered with the runner's key, errors come in
// the order of the file, and `describe` shows every option a section may hold.
#include "catch.h"

#include "shared.h"

#include "recipe/foreign_names.h"
#include "recipe/recipe.h"
#include "recipe/resolve.h"
#include "recipe/sections.h"

#include <fstream>
#include <optional>
#include <regex>
#include <set>

using namespace runner;

namespace {

using runner::test::smoke_recipe;

// Whether `key` ("train.precision") is an option of its section, or of a component
// that the section may select.
bool is_runner_key(const std::string& key) {
  size_t dot = key.find('.');
  if (dot == std::string::npos) return false;
  const SectionSpec* section = find_section(key.substr(0, dot));
  if (!section) return false;
  std::string option = key.substr(dot + 1);
  if (find_option(section_options(*section, nullptr), option)) return true;
  if (!section->component_kind) return false;
  for (const Component* c : registry().list(*section->component_kind))
    if (find_option(c->spec.options, option)) return true;
  return false;
}

std::string write_recipe(const std::string& name, const std::string& body) {
  std::string path = test::tmp_dir("foreign-names") + "/" + name;
  std::ofstream(path) << "extends = \"" << smoke_recipe() << "\"\n" << body;
  return path;
}

RecipeLoad load(const std::string& path, std::vector<std::string> sets = {}) {
  RecipeRequest request;
  request.path = path;
  request.overrides = std::move(sets);
  return load_recipe(request, registry());
}

const Diagnostic* diagnostic_for(const RecipeLoad& load, const std::string& key) {
  for (const auto& d : load.diags)
    if (d.key_path == key) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("every Hugging Face name in the table maps to one real runner key", "[recipe]") {
  std::set<std::string> names;
  REQUIRE(foreign_names().size() >= 40);
  for (const auto& f : foreign_names()) {
    INFO(f.name << " -> " << f.runner_key);
    CHECK(names.insert(f.name).second);
    CHECK(is_runner_key(f.runner_key));
    CHECK((f.from == "Trainer" || f.from == "Accelerate" || f.from == "PEFT" || f.from == "run_qa.py" ||
           f.from == "run_ner.py"));
    CHECK_FALSE(f.example.empty());
  }
  for (const char* name : {"learning_rate", "per_device_train_batch_size", "batch_size", "fp16", "bf16",
                           "gradient_accumulation_steps", "max_grad_norm", "warmup_ratio", "num_train_epochs",
                           "weight_decay", "warmup_steps", "seed", "mixed_precision"})
    CHECK(find_foreign_name(name) != nullptr);
}

TEST_CASE("a Trainer or Accelerate name in a recipe gets the runner's key as its hint", "[recipe]") {
  std::string path = write_recipe("hf.toml",
                                  "learning_rate = 2e-5\n"
                                  "[train]\nfp16 = true\ngradient_accumulation_steps = 4\nnum_train_epochs = 2\n"
                                  "[data]\nper_device_train_batch_size = 16\n"
                                  "[optimizer]\nwarmup_ratio = 0.1\nmax_grad_norm = 1.0\n"
                                  "[run]\nweight_decay = 0.01\n");
  RecipeLoad l = load(path);
  INFO(format_all(l.diags));
  CHECK_FALSE(l.recipe);
  struct Expect { const char* key; const char* hint; };
  for (Expect e : {Expect{"learning_rate", "is optimizer.lr here: write lr = 2e-05 under [optimizer]"},
                   Expect{"train.fp16", "is train.precision here: write precision = \"fp16\" under [train]"},
                   Expect{"train.gradient_accumulation_steps", "is train.grad_accum here"},
                   Expect{"train.num_train_epochs", "is train.epochs here"},
                   Expect{"data.per_device_train_batch_size", "is data.train_batch_size here"},
                   Expect{"optimizer.warmup_ratio", "is scheduler.warmup_ratio here"},
                   Expect{"optimizer.max_grad_norm", "is train.max_grad_norm here"},
                   Expect{"run.weight_decay", "is optimizer.weight_decay here"}}) {
    INFO(e.key);
    const Diagnostic* d = diagnostic_for(l, e.key);
    REQUIRE(d);
    CHECK_THAT(d->hint, Catch::Contains(e.hint));
  }
}

TEST_CASE("a run_qa.py option under [data] of a dataset without it names the datasets that have it", "[recipe]") {
  RecipeLoad l = load(write_recipe("qa_on_glue.toml", "[data]\ndoc_stride = 64\n"));
  INFO(format_all(l.diags));
  const Diagnostic* d = diagnostic_for(l, "data.doc_stride");
  REQUIRE(d);
  CHECK_THAT(d->hint, Catch::Contains("squad_json, squad_jsonl") && !Catch::Contains("is data.doc_stride here"));
  // At the top level it is run_qa.py's flag, with the runner's key.
  RecipeLoad top = load(write_recipe("qa_top.toml", "doc_stride = 64\n"));
  REQUIRE(diagnostic_for(top, "doc_stride"));
  CHECK_THAT(diagnostic_for(top, "doc_stride")->hint, Catch::Contains("is data.doc_stride here"));
}

TEST_CASE("a Hugging Face name given to --set gets the runner's key as its hint", "[recipe]") {
  RecipeLoad l = load(smoke_recipe(), {"learning_rate=3e-5", "train.bf16=true"});
  INFO(format_all(l.diags));
  REQUIRE(diagnostic_for(l, "learning_rate"));
  CHECK_THAT(diagnostic_for(l, "learning_rate")->hint, Catch::Contains("--set optimizer.lr=3e-05"));
  REQUIRE(diagnostic_for(l, "train.bf16"));
  CHECK_THAT(diagnostic_for(l, "train.bf16")->hint, Catch::Contains("--set train.precision=bf16"));
}

TEST_CASE("a recipe's errors print in the order of the file", "[recipe]") {
  // Sections are checked run, data, ..., train; the file lists them otherwise.
  std::string path = write_recipe("order.toml",
                                  "[train]\nepohcs = 2\n"
                                  "[optimizer]\nlrr = 1e-3\n"
                                  "[run]\nseedd = 1\n"
                                  "[data]\nmax_lenght = 64\n");
  auto r = test::run_command(test::runner_exe() + " validate " + path);
  INFO(r.out);
  CHECK(r.exit_code == 2);
  size_t a = r.out.find("train.epohcs"), b = r.out.find("optimizer.lrr"), c = r.out.find("run.seedd"),
         d = r.out.find("data.max_lenght");
  REQUIRE(d != std::string::npos);
  CHECK(a < b);
  CHECK(b < c);
  CHECK(c < d);
}

TEST_CASE("describe KIND NAME shows the section's own options beside the component's", "[recipe]") {
  auto r = test::run_command(test::runner_exe() + " describe optimizer adamw");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("betas") && Catch::Contains("options of [optimizer]"));
  size_t section = r.out.find("options of [optimizer]");
  CHECK(r.out.find("  lr ", section) != std::string::npos);
  CHECK(r.out.find("  weight_decay ", section) != std::string::npos);
}

namespace {

// One Trainer, Accelerate or PEFT setting as a user writes it, and the runner's
// value it stands for (written here from the Trainer's documentation, not from
// the table). `context`: other lines the setting needs to be valid where it is
// (fp16 is a GPU precision).
struct HfSetting {
  const char* name;
  const char* written;   // the value in the user's recipe
  nlohmann::json runner; // what the runner key must hold once the hint is applied
  const char* context = "";
};

// A [data] section of the smoke question answering or NER files, with `extra` lines.
const char* task_data(const std::string& dataset, const std::string& extra) {
  static std::vector<std::string> kept;  // the settings hold their context as a C string
  const std::string folder = dataset == "conll" ? "ner" : "qa";
  kept.push_back("[data]\ndataset = \"" + dataset + "\"\ndir = \"" + runner::test::source_dir() + "/recipes/smoke/" +
                 folder + "\"\n" + extra);
  return kept.back().c_str();
}

std::vector<HfSetting> settings_as_written() {
  using J = nlohmann::json;
  static const std::string qa_rest = "version = \"2.0\"\nmax_length = 48\ndoc_stride = 16\n";
  return {
      {"learning_rate", "3e-5", 3e-5},
      {"weight_decay", "0.05", 0.05},
      {"adam_beta1", "0.8", J::array({0.8, 0.999})},
      {"adam_beta2", "0.98", J::array({0.9, 0.98})},
      {"adam_epsilon", "1e-6", 1e-6},
      {"optim", "\"adamw_torch\"", "adamw"},
      {"lr_scheduler_type", "\"cosine\"", "cosine"},
      {"warmup_ratio", "0.06", 0.06, "[scheduler]\nwarmup_steps = 0\n"},
      {"warmup_steps", "10", 10, "[scheduler]\nwarmup_ratio = 0\n"},
      {"per_device_train_batch_size", "16", 16},
      {"per_gpu_train_batch_size", "8", 8},
      {"batch_size", "16", 16},
      {"per_device_eval_batch_size", "32", 32},
      {"per_gpu_eval_batch_size", "32", 32},
      {"max_seq_length", "96", 96},
      {"task_name", "\"MRPC\"", "glue/mrpc"},
      {"num_train_epochs", "5", 5.0},
      {"num_epochs", "2", 2.0},
      {"max_steps", "20", 20},
      {"gradient_accumulation_steps", "2", 2},
      {"max_grad_norm", "0.5", 0.5},
      {"fp16", "true", "fp16", "[run]\ndevice = \"cuda\"\n"},
      {"bf16", "true", "bf16"},
      {"mixed_precision", "\"no\"", "fp32"},
      {"logging_steps", "5", 5},
      {"eval_steps", "8", 8},
      {"eval_strategy", "\"epoch\"", true},
      {"evaluation_strategy", "\"steps\"", false},
      {"save_strategy", "\"no\"", 0.0},
      {"save_steps", "8", 8},
      {"save_total_limit", "3", 3},
      {"metric_for_best_model", "\"f1\"", "eval.f1"},
      {"greater_is_better", "false", false},
      {"early_stopping_patience", "2", 2},
      {"load_best_model_at_end", "true", true},
      {"label_smoothing_factor", "0.2", 0.2},
      {"gradient_checkpointing", "true", true},
      {"seed", "1", 1},
      {"output_dir", "\"hf_runs\"", "hf_runs"},
      {"run_name", "\"hf_run\"", "hf_run"},
      {"report_to", "\"tensorboard\"", J::array({"console", "jsonl", "tensorboard"})},
      {"full_determinism", "true", true},
      {"use_cpu", "true", "cpu"},
      {"no_cuda", "true", "cpu"},
      {"cpu", "true", "cpu"},
      {"model_name_or_path", "\"sentence-transformers/all-MiniLM-L6-v2\"", nullptr},
      {"tokenizer_name", "\"bert-base-uncased\"", nullptr},
      {"do_lower_case", "false", "false"},
      {"num_processes", "2", 2},
      {"nproc_per_node", "2", 2},
      {"num_machines", "1", 1},
      {"nnodes", "1", 1},
      {"ddp_backend", "\"gloo\"", "gloo"},
      {"ddp_timeout", "600", 600},
      {"use_peft", "true", true},
      {"lora_r", "16", 16, "[lora]\nenabled = true\n"},
      {"lora_rank", "4", 4, "[lora]\nenabled = true\n"},
      {"lora_alpha", "32", 32.0, "[lora]\nenabled = true\n"},
      {"lora_dropout", "0.1", 0.1, "[lora]\nenabled = true\n"},
      {"use_rslora", "true", true, "[lora]\nenabled = true\n"},
      {"version_2_with_negative", "true", "2.0", task_data("squad_jsonl", "max_length = 48\ndoc_stride = 16\n")},
      {"doc_stride", "64", 64, task_data("squad_jsonl", "version = \"2.0\"\nmax_length = 128\n")},
      {"n_best_size", "10", 10, task_data("squad_jsonl", qa_rest)},
      {"max_answer_length", "8", 8, task_data("squad_jsonl", qa_rest)},
      {"null_score_diff_threshold", "0.5", 0.5, task_data("squad_jsonl", qa_rest)},
      {"label_all_tokens", "true", true, task_data("conll", "")},
  };
}

// The `write OPTION = VALUE under [SECTION]` of a hint.
struct WrittenHint {
  std::string section, option, value;
};

std::optional<WrittenHint> written_hint(const std::string& hint) {
  std::smatch m;
  if (!std::regex_search(hint, m, std::regex(R"(write (\w+) = (.+) under \[(\w+)\])"))) return std::nullopt;
  return WrittenHint{m[3], m[1], m[2]};
}

}  // namespace

TEST_CASE("every Trainer-name hint keeps the user's value and, applied, gives a valid recipe", "[recipe]") {
  std::vector<HfSetting> settings = settings_as_written();
  REQUIRE(settings.size() == foreign_names().size());
  for (const HfSetting& s : settings) {
    INFO(s.name << " = " << s.written);
    REQUIRE(find_foreign_name(s.name));
    // At the top level, as the Trainer's flat arguments would be written.
    RecipeLoad wrong = load(write_recipe("hf_wrong.toml", std::string(s.name) + " = " + s.written + "\n" + s.context));
    const Diagnostic* d = diagnostic_for(wrong, s.name);
    REQUIRE(d);
    INFO(d->hint);
    std::optional<WrittenHint> w = written_hint(d->hint);
    REQUIRE(w);
    std::string context = s.context;
    // The hint's line goes into its section's table (a context line may open the same one).
    std::string header = "[" + w->section + "]\n";
    size_t at = context.find(header);
    std::string line = w->option + " = " + w->value + "\n";
    context = at == std::string::npos ? context + header + line : context.insert(at + header.size(), line);
    RecipeLoad fixed = load(write_recipe("hf_fixed.toml", context));
    INFO(format_all(fixed.diags));
    REQUIRE(fixed.recipe);
    if (!s.runner.is_null()) CHECK(fixed.recipe->section(w->section)[w->option] == s.runner);
  }
}

TEST_CASE("a --set of a Trainer name keeps its value; the runner's own name elsewhere is not called one", "[recipe]") {
  RecipeLoad l = load(smoke_recipe(), {"learning_rate=3e-5", "lr=3e-5", "train.metric_for_best_model=f1"});
  INFO(format_all(l.diags));
  REQUIRE(diagnostic_for(l, "learning_rate"));
  CHECK_THAT(diagnostic_for(l, "learning_rate")->hint, Catch::Contains("--set optimizer.lr=3e-05"));
  REQUIRE(diagnostic_for(l, "lr"));
  CHECK_THAT(diagnostic_for(l, "lr")->hint, !Catch::Contains("Hugging Face") && !Catch::Contains("Trainer"));
  CHECK_THAT(diagnostic_for(l, "lr")->hint, Catch::Contains("is optimizer.lr here") &&
                                                Catch::Contains("--set optimizer.lr=3e-05"));
  REQUIRE(diagnostic_for(l, "train.metric_for_best_model"));
  CHECK_THAT(diagnostic_for(l, "train.metric_for_best_model")->hint,
             Catch::Contains("--set train.metric_for_best=eval.f1"));
}

TEST_CASE("an eval metric named without eval. gets it as the did-you-mean", "[recipe]") {
  RecipeLoad l = load(smoke_recipe(), {"train.metric_for_best=f1"});
  const Diagnostic* d = diagnostic_for(l, "train.metric_for_best");
  REQUIRE(d);
  CHECK_THAT(d->message, Catch::Contains("unknown metric \"f1\""));
  CHECK(d->hint == "did you mean \"eval.f1\"?");
}

TEST_CASE("the Trainer's strategies name the runner's keys, save_strategy epoch its own", "[recipe]") {
  RecipeLoad l = load(smoke_recipe(), {"train.eval_strategy=no", "train.save_strategy=epoch"});
  INFO(format_all(l.diags));
  REQUIRE(diagnostic_for(l, "train.eval_strategy"));
  CHECK_THAT(diagnostic_for(l, "train.eval_strategy")->hint, Catch::Contains("--set train.eval_each_epoch=false"));
  REQUIRE(diagnostic_for(l, "train.save_strategy"));
  CHECK_THAT(diagnostic_for(l, "train.save_strategy")->hint,
             Catch::Contains("--set train.checkpoint_each_epoch=true"));
}

TEST_CASE("report_to's integrations the runner lacks are named as not supported, never suggested", "[recipe]") {
  for (const std::string written : {"\"wandb\"", "[\"wandb\", \"tensorboard\"]", "[\"comet_ml\"]"}) {
    INFO("report_to = " << written);
    RecipeLoad wrong = load(write_recipe("hf_report.toml", "report_to = " + written + "\n"));
    const Diagnostic* d = diagnostic_for(wrong, "report_to");
    REQUIRE(d);
    INFO(d->hint);
    CHECK_THAT(d->hint, Catch::Contains("is not supported"));
    std::optional<WrittenHint> w = written_hint(d->hint);
    REQUIRE(w);
    CHECK_THAT(w->value, !Catch::Contains("wandb") && !Catch::Contains("comet_ml"));
    RecipeLoad fixed = load(smoke_recipe(), {w->section + "." + w->option + "=" + w->value});
    INFO(format_all(fixed.diags));
    CHECK(fixed.recipe);
  }
}

// A misplaced option's hint names its section's key with the option's default:
// given back as a --set, that key is not refused for its name or its value.
TEST_CASE("every misplaced-option hint names a key and a value the recipe accepts", "[recipe]") {
  size_t checked = 0;
  for (const auto& section : recipe_sections())
    for (const auto& option : section.options) {
      const std::string hint = misplaced_option_hint(option.name, nullptr);
      std::optional<WrittenHint> w = written_hint(hint);
      if (!w) continue;  // an option of several sections gets no one answer
      const std::string key = w->section + "." + w->option;
      INFO(option.name << ": " << hint);
      RecipeLoad applied = load(smoke_recipe(), {key + "=" + w->value});
      INFO(format_all(applied.diags));
      const Diagnostic* d = diagnostic_for(applied, key);
      CHECK((!d || d->severity != Severity::Error));
      ++checked;
    }
  CHECK(checked > 50);
}
