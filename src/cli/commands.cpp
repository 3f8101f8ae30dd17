// The one argument table: every flag once, every command once, each command
// with what its handler needs (Needs::LibTorch: the front hands it to runner-torch).
#include "cli/commands.h"

namespace runner {

const std::vector<FlagSpec>& flag_table() {
  static const std::vector<FlagSpec> flags = {
      {"--set", "KEY=VALUE", "Override a recipe option, typed by the schema (e.g. optimizer.lr=3e-5)", true},
      {"--format", "toml|yaml|json", "Output format (default toml)"},
      {"--tokenizer", "PATH", "Tokenizer folder (vocab.txt and/or tokenizer.json) or file; "
                              "relative names resolve against $RUNNER_MODELS"},
      {"--tokenizer-format", "auto|vocab_txt|tokenizer_json", "Which tokenizer file to read (default auto)"},
      {"--max-length", "N", "Maximum tokens per example, special tokens included", false, IntRange{4, 8192}},
      {"--truncation", "longest_first|only_first|only_second", "How pairs are cut to --max-length"},
      {"--input", "FILE", "Read input from FILE (tokenize, predict: JSONL, or predict: CSV/TSV; - or none: standard "
                          "input; evaluate: a labelled CSV, TSV or JSONL file scored in place of a split)"},
      {"--input-format", "csv|tsv|jsonl", "The --input file's format (default its extension's)"},
      {"--columns", "ROLE=COL,...", "The --input columns of text_a, text_b and label: header names, JSON keys or "
                                    "0-based indices, as data.columns (default text_a, text_b, label)"},
      {"--no-header", "", "The --input CSV/TSV file has no header line (columns are then 0-based indices)"},
      {"--model", "DIR|RUN|ID", "A Hugging Face model folder (config.json + weights), a run (its final/), a LoRA "
                            "adapter folder (PEFT's or `runner export`'s), or a name as model.pretrained takes it "
                            "($RUNNER_MODELS, Hub id)"},
      {"--base", "DIR|ID", "The base model of a LoRA adapter folder given as --model (default: its "
                           "adapter_config.json's base_model_name_or_path)"},
      {"--batch-size", "N", "Examples per forward pass", false, IntRange{1, 65536}},
      {"--attention-mask", "", "Also write \"attention_mask\" as transformers does: a 1 per token (lines are not padded)"},
      {"--probabilities", "", "Also write \"probabilities\": the softmax of each line's logits (multi-label: one sigmoid per label)"},
      {"--threshold", "P", "Multi-label models: print the labels whose sigmoid is above P (default 0.5)"},
      {"--resume", "auto", "Continue the newest unfinished run of this recipe instead of starting a new one"},
      {"--stop-at-step", "N", "End the run after optimizer step N with an evaluation and a checkpoint there, "
                              "its schedule still the recipe's whole one; its status is then stopped_by_search "
                              "(what a sweep's [asha] uses), and --resume auto continues it", false,
       IntRange{1, 4000000000000000000LL}},
      {"--stop-at-epoch", "N", "As --stop-at-step, at the end of epoch N (what a sweep's [asha] with unit = "
                               "\"epochs\" uses)", false, IntRange{1, 1000000000LL}},
      {"--allow-changes", "KEY,...", "Resume even though these recipe keys (or key prefixes, or "
                                     "content_sha256.<file>) differ from the run's", true},
      {"--nproc-per-node", "N", "Worker processes to start on this machine (default topology.processes_per_node)",
       false, IntRange{1, 4096}},
      {"--nnodes", "M", "Machines taking part (default topology.nodes)", false, IntRange{1, 65536}},
      {"--node-rank", "R", "This machine's index among --nnodes, 0-based (default 0)", false, IntRange{0, 65535}},
      {"--master-addr", "A", "Address of node 0, where rank 0 hosts the rendezvous store (default 127.0.0.1)"},
      {"--master-port", "P", "Free TCP port on node 0 for the rendezvous (default: on one machine a free port, else 29500)", false, IntRange{1, 65535}},
      {"--max-restarts", "N", "When a worker dies, stop the others and start them all again from the "
                              "run's newest valid checkpoint, at most N times (default 0: fail)", false,
       IntRange{0, 1000}},
      {"--dry-run", "", "Expand and validate every point, print them with their ids, run nothing"},
      {"--status", "", "Print the summary table of a running or finished sweep"},
      {"--jobs", "N", "Points run at once; the CPU threads are divided between them (default 1)", false,
       IntRange{1, 4096}},
      // 10,000 points already take days of runs; past the limit a typo (one more grid key) is
      // far likelier than intent, and expanding 10^12 points would take hours and all memory.
      {"--max-points", "N", "Refuse a sweep of more points than N (default 10000)", false,
       IntRange{1, 10000000}},
      {"--retry-failed", "", "Run again the points that failed before (they are skipped otherwise)"},
      {"--slurm", "[SBATCH_OPTION...]", "Submit each point as a Slurm job through sbatch, with the options that "
                                        "follow (all the rest of the line), and follow the jobs until they end; "
                                        "--jobs then caps the jobs queued at once (default all)",
       false, std::nullopt, true},
      {"--fail-fast", "", "Stop the sweep (interrupting the running points) at the first failed point"},
      {"--schema", "", "Print the sweep file's JSON Schema (draft-07)"},
      {"--metric", "NAME", "A metric to check: eval.NAME (final evaluation) or best.NAME", true},
      {"--abs-tol", "X", "Allowed absolute worsening of the --metric it follows (before every --metric: of each)", true},
      {"--rel-tol", "R", "Allowed worsening relative to A, of the --metric it follows (before every --metric: of each)", true},
      {"--direction", "higher|lower", "Which way is better (default lower for losses, higher otherwise)", true},
      {"--write-baseline", "RUN_DIR", "Print a baseline JSON of a completed run (metrics, recipe hash, environment)"},
      {"--checkpoint", "NAME", "step-00000042 (or 42), best, or final; default: export takes the newest valid "
                            "checkpoint, evaluate takes final/ (else the newest)"},
      {"--split", "NAME", "The labelled split to evaluate (default the recipe's data.eval_split, e.g. dev)"},
      {"--recipe", "RECIPE", "The recipe whose [data], [tokenizer] and [model] evaluate a model folder that "
                             "is not a run's"},
      {"--to", "DIR", "Folder to create (it must not exist, or be empty)"},
      {"--merge", "", "A LoRA run's adapters merged into the weights (W + scale B A, as PEFT's "
                      "merge_and_unload): a whole Hugging Face folder instead of a PEFT adapter folder"},
      {"--out", "FILE",
       "Where to write the HTML report (default: report.html in the run or sweep directory, or "
       "./report.html for several runs; replaced atomically)"},
      {"--x", "step|samples|epoch|time", "The run charts' x axis: optimizer step (default), training samples "
                                         "(step x effective batch), epoch, or elapsed seconds of the run"},
      {"--json", "", "Print one JSON document for scripts instead of text"},
      {"--names", "", "Print only the run names, one a line, newest first (what shell completion offers)"},
      {"--runs", "DIR", "Look for runs named as `runner ls` prints them in DIR first, then $RUNNER_RUNS and "
                        "./runs (ls: list DIR)", true},
      {"--defaults", "", "Write the default recipe without asking (MRPC, BERT-Mini, fp32, batch 32, 3 epochs)"},
      {"--force", "", "Replace RECIPE when it exists, without asking"},
  };
  return flags;
}

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> commands = {
      {"validate", "Check a recipe: every error at once, with file:line:col, exit 0 or 2",
       {{"RECIPE", "a .toml or .yaml recipe"}}, {"--set", "--json"}, cmd_validate},
      {"print-config", "Print the fully resolved recipe, every default filled in",
       {{"RECIPE", "a .toml or .yaml recipe"}}, {"--set", "--format"}, cmd_print_config,
       Needs::LibTorch},  // the model's sizes come from its family (show_model_sizes)
      {"schema", "Print the recipe JSON Schema (draft-07) generated from the components", {}, {},
       cmd_schema},
      {"describe", "Show a section's or a component's options (name, type, default, range, doc)",
       {{"KIND", "a section (run, data, train, ...) or a component kind (optimizer, ...)"},
        {"NAME", "a component name, e.g. adamw", false}},
       {"--json"}, cmd_describe},
      {"plugins", "List every registered component by kind, with plugins of RECIPE loaded",
       {{"RECIPE", "a recipe whose plugins to load first", false}}, {}, cmd_plugins},
 {"tokenize", "Tokenize JSONL lines {\"text_a\", \"text_b\"} and add input_ids and token_type_ids",
       {}, {"--tokenizer", "--tokenizer-format", "--max-length", "--truncation", "--input", "--attention-mask"},
       cmd_tokenize},
      {"run", "Train a recipe end to end into runs/<name>/<UTC time>-<id>/ (also: runner RECIPE)",
       {{"RECIPE", "a .toml or .yaml recipe"}}, {"--set", "--resume", "--allow-changes", "--stop-at-step", "--stop-at-epoch"},
       cmd_run,
       Needs::LibTorch},
      {"resume", "Continue a run from its newest valid checkpoint, checking that nothing changed",
       {{"RUN_DIR", "a run directory written by runner run"}}, {"--set", "--allow-changes", "--runs"},
       cmd_resume, Needs::LibTorch},
      {"launch", "Start this machine's data-parallel workers for a recipe (torchrun-style); each "
                 "line they print is prefixed with its rank",
       {{"RECIPE", "a .toml or .yaml recipe"}},
       {"--nproc-per-node", "--nnodes", "--node-rank", "--master-addr", "--master-port",
        "--max-restarts", "--set", "--resume", "--allow-changes"},
       cmd_launch},
      {"predict", "Write logits and the predicted label per example of a JSONL, CSV or TSV input; a token "
                  "model's entities, a question answering model's answers",
       {}, {"--model", "--base", "--tokenizer", "--input", "--input-format", "--columns", "--no-header", "--max-length",
        "--truncation", "--batch-size", "--probabilities", "--threshold", "--runs"},
       cmd_predict, Needs::LibTorch},
      {"sweep", "Run a sweep file's points (grid, zip, points) as separate runs, resumably",
       {{"SWEEP", "a .toml or .yaml sweep file", false}},
       {"--set", "--dry-run", "--status", "--json", "--jobs", "--retry-failed", "--fail-fast", "--schema",
        "--max-points", "--slurm"},
       cmd_sweep},
      {"compare", "Diff two runs (or a run and a baseline); with --metric, check for regressions",
       {{"A", "the reference: a run directory or a baseline JSON", false},
        {"B", "the candidate: a run directory or a baseline JSON", false}},
       {"--metric", "--abs-tol", "--rel-tol", "--direction", "--write-baseline", "--json", "--runs"}, cmd_compare},
      {"export", "Write a run's checkpoint as a Hugging Face folder (config.json, model.safetensors, tokenizer)",
       {{"RUN_DIR", "a run directory written by runner run"}}, {"--checkpoint", "--to", "--merge", "--runs"}, cmd_export,
       Needs::LibTorch},
      {"evaluate", "Loss and metrics of a run's final/ (or a checkpoint, or a model folder) on a labelled split",
       {{"PATH", "a run (as runner ls prints it), RUN/checkpoints/step-N, RUN/final, or a model folder"}},
       {"--split", "--checkpoint", "--recipe", "--set", "--json", "--input", "--input-format", "--columns", "--no-header",
        "--runs"},
       cmd_evaluate, Needs::LibTorch},
      {"report", "Write one self-contained HTML report (charts, identity, differences) of a run, "
                 "several runs overlaid, or a sweep",
       {{"PATH", "a run directory, several run directories, or a sweep directory"}}, {"--out", "--x", "--runs"},
       cmd_report, Needs::Core, true},
      {"ls", "List the runs under DIR (default runs/), newest first: status, steps, best metric, speed",
       {{"DIR", "a folder of runs, e.g. runs/ or runs/<name>", false}}, {"--json", "--names", "--runs"}, cmd_ls},
      {"init", "Write a commented recipe from a few questions (task, model, precision this machine "
               "offers, batch size, epochs, processes); it is validated before it is written",
       {{"RECIPE", "the recipe file to write (default recipe.toml)", false}}, {"--defaults", "--force"}, cmd_init},
      {"fetch", "Download what recipes or names need into the caches (for machines without a network) "
                "and print where each file is",
       {{"NAME", "recipes (.toml, .yaml), Hub ids (org/name[@revision]), GLUE tasks (glue/mrpc, glue/mnli, ...), conll2003, squad, squad_v2"}},
       {"--set"}, cmd_fetch, Needs::Core, true},
      {"env", "Show what this build and machine offer (versions, LibTorch build, CUDA, NCCL, CPU flags, "
              "threads, roots and caches), for bug reports",
       {}, {"--json"}, cmd_env, Needs::LibTorch},
      {"completion", "Print a shell completion script made from this command table",
       {{"SHELL", "bash, zsh or fish"}}, {}, cmd_completion},
      {"version", "Show the runner version, git commit and LibTorch version", {}, {}, cmd_version},
  };
  return commands;
}

}  // namespace runner
