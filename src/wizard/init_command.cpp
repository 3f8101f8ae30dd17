#include "wizard/init_command.h"

#include "model/model_budget.h"
#include "recipe/recipe.h"
#include "registry/registry.h"
#include "run/run_dir.h"
#include "util/paths.h"
#include "wizard/init_recipe.h"
#include "wizard/prompter.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <ostream>

namespace runner {
namespace fs = std::filesystem;

namespace {

constexpr const char* kOwnFolder = "a Hugging Face folder or Hub id with pretrained weights (downloaded under $RUNNER_MODELS)";

// A folder is offered for its weights: config.json alone would train from random ones.
std::string check_model_folder(const std::string& answer) {
  std::string dir = resolve_against(model_root(), answer);
  if (auto no_weights = missing_weights(dir)) return no_weights->message + "; " + no_weights->hint;
  if (fs::is_regular_file(dir + "/config.json")) return "";
  return fmt::format("no Hugging Face folder with config.json at {}; download it there first "
                     "(e.g. `huggingface-cli download {} --local-dir {}`) or pick a preset",
                     dir, answer, dir);
}

void ask_model(Prompter& ask, InitChoices& c) {
  std::vector<std::string> names;
  for (const auto& m : offered_models()) names.push_back(m.preset + " (" + m.type + ")");
  names.push_back(kOwnFolder);
  std::string pick = ask.choice("Model: a preset is an architecture that starts from random weights; a folder "
                                "or Hub id fine-tunes its pretrained weights",
                                names, c.preset + " (" + c.model_type + ")");
  if (pick == kOwnFolder) {
    c.pretrained = ask.text("Folder or Hub id", "bert-base-uncased", check_model_folder);
    c.preset.clear();
    return;
  }
  for (const auto& m : offered_models())
    if (pick == m.preset + " (" + m.type + ")") c.model_type = m.type, c.preset = m.preset;
}

InitChoices ask_choices(Prompter& ask, const InitOptions& o) {
  InitChoices c = default_choices(o.caps);
  c.task = ask.choice("Task:", offered_tasks(), c.task);
  ask_model(ask, c);
  if (o.caps.cuda_available) c.device = ask.choice("Device:", {"auto", "cuda", "cpu"}, c.device);
  std::vector<std::string> precisions = offered_precisions(o.caps, c.device);
  c.precision = ask.choice(precisions.size() > 1 ? "Precision:"
                                                 : "Precision (only fp32 here: this CPU has no native bf16):",
                           precisions, c.precision);
  c.batch_size = ask.integer("Training batch size per process", c.batch_size, 1, 4096);
  c.epochs = ask.number("Epochs (fractions allowed, e.g. 0.5)", c.epochs, 0, 1000);
  c.processes = ask.integer(fmt::format("Processes on this machine (1 to {})", o.cpus), c.processes, 1,
                            std::max(1u, o.cpus));
  return c;
}

// The schema for editors, as the recipe's folder sees it, when this checkout has one.
std::string schema_directive(const std::string& recipe_path) {
  fs::path schema = fs::path(source_root()) / "schemas" / "recipe.schema.json";
  if (!fs::exists(schema)) return "";
  return fs::relative(schema, fs::absolute(recipe_path).parent_path()).string();
}

// Validates the text as a recipe at a temporary name beside `path`, then renames
// it into place; an invalid recipe is removed and its errors printed.
// Which weights the recipe starts from, said once it is written: a preset's
// accuracy after training from random weights is far below a pretrained model's.
std::string weights_note(const InitChoices& c) {
  if (!c.pretrained.empty()) return fmt::format("The model fine-tunes the pretrained weights of {}.\n", c.pretrained);
  return fmt::format("The model ({} preset {}) starts from random weights; set model.pretrained to a Hugging Face "
                     "folder or Hub id to fine-tune pretrained weights.\n", c.model_type, c.preset);
}

int write_validated(const std::string& path, const InitChoices& c, const std::string& text, const InitOptions& o,
                    std::ostream& out, std::ostream& err) {
  std::string tmp = (fs::path(path).parent_path() / ("." + fs::path(path).filename().string() + ".init.toml")).string();
  std::ofstream(tmp) << text;
  RecipeRequest request;
  request.path = tmp;
  request.caps = o.caps;
  RecipeLoad load = load_recipe(request, registry());
  if (!load.recipe) {
    err << format_all(load.diags) << fmt::format("{}: the recipe from these answers does not validate; "
                                                 "nothing was written\n", path);
    fs::remove(tmp);
    return 2;
  }
  fs::rename(tmp, path);
  out << fmt::format("wrote {} (valid). Train with `runner {}`; `runner print-config {}` shows every "
                     "option.\n", path, path, path)
      << weights_note(c);
  return 0;
}

}  // namespace

int run_init_command(const InitOptions& o, std::istream& in, std::ostream& out, std::ostream& err) {
  if (!o.defaults && !o.on_terminal) {
    err << "error: runner init asks its questions on a terminal, and standard input is not one\n"
        << "  hint: run it in a terminal, or `runner init --defaults " << o.path
        << "` to write the default recipe without questions\n";
    return 2;
  }
  std::string parent = fs::absolute(o.path).parent_path().string();
  if (!fs::is_directory(parent)) {
    err << fmt::format("error: {}: the folder {} does not exist\n  hint: create it first\n", o.path, parent);
    return 2;
  }
  Prompter ask(in, out);
  try {
    bool kept = fs::exists(o.path) && !o.force &&
                (o.defaults || !ask.yes_no(o.path + " exists. Replace it?", false));
    if (kept) {
      err << fmt::format("error: {} exists; it was kept as it was\n  hint: pass another file name "
                         "(e.g. `runner init my_recipe.toml`), or --force to replace it\n", o.path);
      return 2;
    }
    InitChoices c = o.defaults ? default_choices(o.caps) : ask_choices(ask, o);
    return write_validated(o.path, c, init_recipe_text(c, schema_directive(o.path), utc_timestamp()), o, out, err);
  } catch (const Prompter::Closed&) {
    err << "\nerror: the answers ended before the last question; nothing was written\n";
    return 2;
  }
}

}  // namespace runner
