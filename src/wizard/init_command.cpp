#include "wizard/init_command.h"

#include "recipe/recipe.h"
#include "registry/registry.h"
#include "run/run_dir.h"
#include "util/diagnostic.h"
#include "util/output_check.h"
#include "util/paths.h"
#include "util/utf8.h"
#include "wizard/init_recipe.h"
#include "wizard/pretrained_offers.h"
#include "wizard/prompter.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <ostream>

namespace runner {
namespace fs = std::filesystem;

namespace {

constexpr const char* kOwnFolder = "another Hugging Face folder or Hub id with pretrained weights";

// A folder is offered for its weights: config.json alone would train from random ones.
std::string check_model_folder(const std::string& answer) {
  std::string problem;
  return pretrained_folder(answer, problem).empty() ? problem : "";
}

// The answer is a folder as this shell sees it (the recipe then names it from its own folder).
std::string check_conll_folder(const std::string& answer) {
  for (const char* file : {"train.conll", "dev.conll"})
    if (!fs::is_regular_file(fs::path(answer) / file))
      return fmt::format("{} has no {} (CoNLL: a token and its tag per line, a blank line between sentences)",
                         answer, file);
  return "";
}

// A folder of SQuAD files: "squad_json" for train.json and dev.json (the SQuAD
// files), "squad_jsonl" for train.jsonl and dev.jsonl (one question a line); "" for neither.
std::string squad_dataset_in(const std::string& folder) {
  for (const std::string ext : {"json", "jsonl"})
    if (fs::is_regular_file(fs::path(folder) / ("train." + ext)) && fs::is_regular_file(fs::path(folder) / ("dev." + ext)))
      return ext == "json" ? "squad_json" : "squad_jsonl";
  return "";
}

std::string check_squad_folder(const std::string& answer) {
  if (!squad_dataset_in(answer).empty()) return "";
  return fmt::format("{} has neither train.json and dev.json (SQuAD files) nor train.jsonl and dev.jsonl (one "
                     "question a line)",
                     answer);
}

std::string offer_label(const PretrainedOffer& m) {
  return fmt::format("{} (pretrained {}, {})", m.name, m.model_type, m.where);
}

std::string preset_label(const ModelOffer& m) { return m.preset + " (" + m.type + ")"; }

void use_pretrained(InitChoices& c, const std::string& name, const std::string& folder) {
  c.pretrained = name;
  c.model_type = model_type_of(folder);
  c.preset.clear();
}

// Installed pretrained models first, then the presets, then any other folder or Hub id.
void ask_model(Prompter& ask, InitChoices& c, const std::vector<PretrainedOffer>& installed) {
  std::vector<std::string> names;
  for (const auto& m : installed) names.push_back(offer_label(m));
  for (const auto& m : offered_models()) names.push_back(preset_label(m));
  names.push_back(kOwnFolder);
  // default_choices took the first installed model, or a preset when there is none.
  std::string current = c.pretrained.empty() ? preset_label({c.model_type, c.preset}) : names.front();
  std::string pick = ask.choice("Model: a pretrained model fine-tunes its weights; a preset is an architecture "
                                "that starts from random weights",
                                names, current);
  if (pick == kOwnFolder) {
    std::string answer = ask.text("Folder or Hub id", "sentence-transformers/all-MiniLM-L6-v2", check_model_folder);
    std::string problem;
    use_pretrained(c, answer, pretrained_folder(answer, problem));
    return;
  }
  for (const auto& m : installed)
    if (pick == offer_label(m)) c.pretrained = m.name, c.model_type = m.model_type, c.preset.clear();
  for (const auto& m : offered_models())
    if (pick == preset_label(m)) c.model_type = m.type, c.preset = m.preset, c.pretrained.clear();
}

InitChoices ask_choices(Prompter& ask, const InitOptions& o, const std::vector<PretrainedOffer>& installed) {
  InitChoices c = default_choices(o.caps, installed);
  c.task = ask.choice("Task:", offered_tasks(), c.task);
  // A recipe's data.dir starts at the recipe's own folder.
  auto from_recipe = [&o](const std::string& folder) {
    return fs::relative(fs::absolute(folder), fs::absolute(o.path).parent_path()).string();
  };
  if (c.task == "conll")
    c.data_dir = from_recipe(ask.text("Folder holding train.conll and dev.conll", "./ner", check_conll_folder));
  if (c.task == "squad") {
    const std::string folder = ask.text("Folder holding the train and dev questions (.json or .jsonl)", "./squad",
                                        check_squad_folder);
    c.data_dir = from_recipe(folder);
    c.squad_dataset = squad_dataset_in(folder);
    c.squad_version = ask.choice("SQuAD version (2.0: a question may have no answer):", {"1.1", "2.0"}, "1.1");
  }
  ask_model(ask, c, installed);
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

// The schema for editors, as the recipe's folder sees it, when this runner has one.
std::string schema_directive(const std::string& recipe_path) {
  std::string schema = recipe_schema_file();
  if (schema.empty()) return "";
  return fs::relative(schema, fs::weakly_canonical(fs::absolute(recipe_path)).parent_path()).string();
}

// Which weights the recipe starts from, said once it is written: a preset's
// accuracy after training from random weights is far below a pretrained model's.
std::string weights_note(const InitChoices& c) {
  if (!c.pretrained.empty()) return fmt::format("The model fine-tunes the pretrained weights of {}.\n", c.pretrained);
  return fmt::format("The model ({} preset {}) starts from random weights; set model.pretrained to a Hugging Face "
                     "folder or Hub id to fine-tune pretrained weights.\n", c.model_type, c.preset);
}

// The recipe's text at `tmp`, whole, or an InputError naming why (a full disk)
// with `tmp` removed: an empty file would validate, every key having a default.
void write_whole(const std::string& tmp, const std::string& text) {
  std::ofstream file(tmp);
  file << text;
  try {
    require_written(file, tmp);
  } catch (const InputError&) {
    file.close();
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

// Validates the text as a recipe at a temporary name beside `path`, then renames
// it into place; an invalid recipe is removed and its errors printed.
int write_validated(const std::string& path, const InitChoices& c, const std::string& text, const InitOptions& o,
                    std::ostream& out, std::ostream& err) {
  std::string tmp = (fs::path(path).parent_path() / ("." + fs::path(path).filename().string() + ".init.toml")).string();
  write_whole(tmp, text);
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
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    err << fmt::format("error: {}: cannot put the recipe there: {}; nothing was written\n", terminal_safe(path),
                       ec.message());
    return 2;
  }
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
  // Only a regular file is ever replaced: --force onto a folder, a FIFO or a device is refused.
  std::error_code ec;
  const fs::file_status status = fs::status(o.path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    err << fmt::format("error: {} is {}, not a recipe file; nothing was written\n  hint: name a file{}\n",
                       terminal_safe(o.path), fs::is_directory(status) ? "a folder" : "a FIFO, socket or device",
                       fs::is_directory(status) ? " inside it (e.g. `runner init " +
                                                      terminal_safe((fs::path(o.path) / "recipe.toml").string()) + "`)"
                                                : "");
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
    const std::vector<PretrainedOffer> installed = installed_pretrained_models();
    InitChoices c = o.defaults ? default_choices(o.caps, installed) : ask_choices(ask, o, installed);
    return write_validated(o.path, c, init_recipe_text(c, schema_directive(o.path), utc_timestamp()), o, out, err);
  } catch (const Prompter::Closed&) {
    err << "\nerror: the answers ended before the last question; nothing was written\n";
    return 2;
  }
}

}  // namespace runner
