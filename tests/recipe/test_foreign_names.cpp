// Issue 28, item 8: a user coming from Hugging Face writes the Trainer's and
// Accelerate's names; each one is answered with the runner's key, errors come in
// the order of the file, and `describe` shows every option a section may hold.
#include "catch.h"

#include "shared.h"

#include "recipe/foreign_names.h"
#include "recipe/recipe.h"
#include "recipe/resolve.h"
#include "recipe/sections.h"

#include <fstream>
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
    CHECK((f.from == "Trainer" || f.from == "Accelerate"));
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
  for (Expect e : {Expect{"learning_rate", "is optimizer.lr here: write lr = 2e-5 under [optimizer]"},
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

TEST_CASE("a Hugging Face name given to --set gets the runner's key as its hint", "[recipe]") {
  RecipeLoad l = load(smoke_recipe(), {"learning_rate=3e-5", "train.bf16=true"});
  INFO(format_all(l.diags));
  REQUIRE(diagnostic_for(l, "learning_rate"));
  CHECK_THAT(diagnostic_for(l, "learning_rate")->hint, Catch::Contains("--set optimizer.lr=2e-5"));
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
