#!/usr/bin/env bash
# Successive halving (ASHA) against the grid it searches: BERT-Mini on MRPC on the
# CPU (recipes/mrpc_bert_mini.toml, from random initialisation, fp32), the grid of
# 3 learning rates x 3 weight decays x 3 seeds = 27 points, each trained to
# max_budget optimizer steps; then the same 27 points under [asha] with eta = 3,
# min_budget..max_budget. Prints, side by side, each strategy's best eval F1 (its
# best point's best evaluation, and that point), the optimizer steps its runs
# made, and its best configuration with the seeds as replicates (the mean of
# its completed seeds' best F1, their sd and n), each row as soon as its sweep
# ends.
#
#   bench/asha_vs_grid.sh [--lrs 1e-4,3e-4,1e-3] [--weight-decays 0,0.01,0.1]
#                         [--seeds 42,43,44] [--min-budget 12] [--max-budget 108]
#                         [--eta 3] [--max-train N] [--jobs 2] [--out build/asha_vs_grid]
#                         [--recipe recipes/mrpc_bert_mini.toml] [--tokenizer PATH]
#                         [--promotion asynchronous|certain] [--search-first]
#                         [--batch-size N]
#
# Every evaluation is at a multiple of min_budget (train.eval_every = min_budget),
# in both sweeps. A sweep started again continues (each is an ordinary
# `runner sweep`, which runs failed points again), so an interrupted bench goes on
# where it stopped. Needs the
# bert-base-uncased tokenizer and GLUE MRPC under $RUNNER_SHARED (default
# ../shared). The full bench trains 27 x 108 steps for the grid: about an hour on
# 2 cores. --tokenizer sets tokenizer.path (default: the bert-base-uncased folder
# under $RUNNER_SHARED); --tokenizer recipe keeps the recipe's own, as for
# recipes/mrpc_minilm.toml, which fine-tunes pretrained all-MiniLM-L6-v2 instead
# of starting from random weights. --promotion certain runs the search with
# [asha] promotion = "certain" (successive halving's decisions) as the sweep
# asha_certain, beside the asynchronous one. --search-first runs the search
# before the grid, so that a bench cut short has the cheaper row. --batch-size
# sets data.train_batch_size (default: the recipe's). A quick check of the script: --lrs 3e-4,1e-3 --weight-decays 0.01
# --seeds 42 --min-budget 2 --max-budget 6 --eta 2 --max-train 256.
set -euo pipefail
cd "$(dirname "$0")/.."
lrs=1e-4,3e-4,1e-3 wds=0,0.01,0.1 seeds=42,43,44 min=12 max=108 eta=3 max_train=0 jobs=2 batch=0
recipe=recipes/mrpc_bert_mini.toml tokenizer= promotion=asynchronous search_first=0
out=build/asha_vs_grid
while (($#)); do
  if [[ $1 == --search-first ]]; then search_first=1; shift; continue; fi
  case $1 in
    --lrs) lrs=$2 ;; --weight-decays) wds=$2 ;; --seeds) seeds=$2 ;; --min-budget) min=$2 ;;
    --max-budget) max=$2 ;; --eta) eta=$2 ;; --max-train) max_train=$2 ;; --jobs) jobs=$2 ;; --out) out=$2 ;;
    --recipe) recipe=$2 ;; --tokenizer) tokenizer=$2 ;; --promotion) promotion=$2 ;; --batch-size) batch=$2 ;;
    *) echo "asha_vs_grid: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
shared=$(cd "${RUNNER_SHARED:-../shared}" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
# A copy of the runner for the bench's hour: a rebuild meanwhile would delete the
# binary the sweeps start their points from.
if [[ -z ${RUNNER:-} ]]; then
  mkdir -p "$out/bin"
  cp build/runner build/runner-torch "$out/bin/"
  [[ ! -d build/python-packages ]] || ln -sfn "$PWD/build/python-packages" "$out/bin/python-packages"
fi
runner=${RUNNER:-$out/bin/runner}
tokenizer=${tokenizer:-$shared/models/bert-base-uncased}
list() { sed 's/,/, /g' <<<"$1"; }

# NAME EXTRA_SET ASHA_TABLE: a sweep file over the bench's space.
sweep_file() {
  cat >"$out/$1.toml" <<TOML
name = "$1"
base = "$(cd "$(dirname "$recipe")" && pwd)/$(basename "$recipe")"
metric = "eval.f1"
replicates = "run.seed"
output_dir = "$out/runs"

[set]
$( [[ $tokenizer != recipe ]] && echo "\"tokenizer.path\" = \"$tokenizer\"")
"train.eval_every" = $min
"train.eval_each_epoch" = false
"run.loggers" = ["jsonl"]
$( ((max_train > 0)) && echo "\"data.max_train_examples\" = $max_train")
$( ((batch > 0)) && echo "\"data.train_batch_size\" = $batch")
$2
[grid]
"optimizer.lr" = [$(list "$lrs")]
"optimizer.weight_decay" = [$(list "$wds")]
"run.seed" = [$(list "$seeds")]
$3
TOML
}

# NAME: one row: the best completed point's best F1, that point, the steps of every
# run, and the best configuration (the seeds as replicates): its mean F1 over its
# completed seeds, their sd and n.
row() {
  local dir=$out/runs/$1 steps best config
  steps=$(find "$dir" -name summary.json -path '*/*/*/summary.json' -exec jq '.global_step // 0' {} + |
          awk '{s += $1} END {print s + 0}')
  best=$(jq -r '[.points[] | select(.status == "completed" and .best != null)] | max_by(.best) |
                "\(.best * 100 | . * 100 | round / 100)\t\(.point)"' "$dir/sweep_summary.json")
  config=$(jq -r '[.configurations[] | select(.mean != null)] | first |
                  "\(.mean * 10000 | round / 100) ± \((.sd // 0) * 10000 | round / 100) (n \(.n))\t\(.configuration)"' \
           "$dir/sweep_summary.json")
  printf '%-6s\t%s\t%s\t%s\t%s\n' "$1" "${best%%$'\t'*}" "$steps" "${best#*$'\t'}" "$config"
}

sweep_file grid "\"train.max_steps\" = $max" ""
search=asha
[[ $promotion == asynchronous ]] || search=asha_$promotion
sweep_file "$search" "" "[asha]
min_budget = $min
max_budget = $max
eta = $eta
promotion = \"$promotion\""
"$runner" sweep --dry-run "$out/grid.toml" >/dev/null
"$runner" sweep --dry-run "$out/$search.toml" >/dev/null
printf 'strategy\tbest eval F1 (x100)\toptimizer steps\tbest point\tbest configuration: mean F1 ± sd (n seeds)\tconfiguration\n'
# NAME: run the sweep NAME (continuing it when it was started before), then print its row.
sweep_row() {
  "$runner" sweep "$out/$1.toml" --jobs "$jobs" --retry-failed >"$out/$1.log" 2>&1 || { tail -n 20 "$out/$1.log" >&2; exit 1; }
  row "$1"
}
if ((search_first)); then sweep_row "$search"; sweep_row grid; else sweep_row grid; sweep_row "$search"; fi
