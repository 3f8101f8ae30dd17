#!/usr/bin/env bash
# Accuracy parity with Hugging Face on the same pretrained checkpoint: the shipped
# recipes recipes/mrpc_minilm.toml (3 epochs) and recipes/sst2_minilm.yaml (1 epoch),
# all-MiniLM-L6-v2, trained by the runner and by Transformers + Accelerate (task mrpc-lora: the
# MRPC recipe with LoRA adapters, r 8, alpha 16, query and value, lr 5e-4, against PEFT's)
# (bench/accelerate_peer.py finetune) with the settings the runner resolves from the
# recipe (lr, weight decay, warm-up ratio, epochs, batch, max length, precision), one
# run per seed and side; then means, standard deviations and the difference of the
# means in pooled standard deviations (bench/accuracy_table.py).
#
#   bench/accuracy_ab.sh [--tasks mrpc,sst2,mrpc-lora] [--seeds 42,43,44,45,46] [--jobs 2]
#                        [--threads 1] [--out build/accuracy_ab]
#                        [--results bench/results/accuracy_ab] [--table-only]
#
# Resumable: each finished run leaves RESULTS/TASK-SIDE-SEED.json (with the runner's
# version or the peer's package versions and the CPU) and is not run again, so an
# interrupted study goes on where it stopped, with the runner binary it started with
# (copied to OUT/runner; delete it to take a new build). RESULTS is in the tree, to be
# committed: a study takes hours, and build/ does not outlive a fresh clone. --jobs runs that many at once,
# each with --threads intra-op threads (on 2 cores, 2 jobs of 1 thread finish the
# study sooner than 1 job of 2). Needs the peer's venv ($PEER_VENV, default
# build-piptorch/venv; bench/peer_ab.sh creates one) and the MiniLM package
# (scripts/setup.sh). On 2 cores the whole study takes hours (docs/dev/parity.md).
set -euo pipefail
cd "$(dirname "$0")/.."
self=$PWD/bench/accuracy_ab.sh
tasks=mrpc,sst2 seeds=42,43,44,45,46 jobs=2 threads=1 out=build/accuracy_ab table_only=0
results=bench/results/accuracy_ab
py=${PEER_VENV:-build-piptorch/venv}/bin/python3

recipe_of() { case $1 in mrpc | mrpc-lora) echo recipes/mrpc_minilm.toml ;; sst2) echo recipes/sst2_minilm.yaml ;;
  *) echo "accuracy_ab: unknown task '$1' (mrpc, sst2 or mrpc-lora)" >&2; exit 2 ;; esac; }
# TASK -> the --set that makes it from its recipe, and the peer's side of it.
sets_of() { [[ $1 != *-lora ]] || echo "--set lora.enabled=true --set lora.r=8 --set lora.alpha=16 --set optimizer.lr=5e-4"; }
peer_flags_of() { [[ $1 != *-lora ]] || echo "--lora 8,16"; }

# TASK SEED: the runner's run of the shipped recipe; its final evaluation as one JSON line.
runner_side() {
  local task=$1 seed=$2 dir=$out/runs/$1-$2
  rm -rf "$dir"
  # shellcheck disable=SC2046  # sets_of's words are separate arguments
  "$out/runner" run "$(recipe_of "$task")" $(sets_of "$task") --set "run.seed=$seed" --set "run.threads=$threads" \
    --set "run.output_dir=$dir" --set 'run.loggers=["jsonl"]' >"$dir.log" 2>&1 || {
    tail -n 20 "$dir.log" >&2; return 1; }
  jq -c --arg task "$task" --argjson seed "$seed" --argjson threads "$threads" \
    --arg version "$("$out/runner" --version | head -n1)" \
    '{side: "runner", task: $task, seed: $seed, steps: .global_step, accuracy: .final.accuracy,
      f1: .final.f1, examples: .final.examples, threads: $threads, seconds: .total_wall_seconds,
      version: $version}' \
    "$dir"/*/*/summary.json && rm -rf "$dir" "$dir.log"
}

# TASK SEED: the peer's run with the settings the runner resolves from the same recipe.
peer_side() {
  local task=$1 seed=$2 config
  # shellcheck disable=SC2046
  config=$("$out/runner" print-config "$(recipe_of "$task")" $(sets_of "$task") --format json)
  field() { jq -r "$1" <<<"$config"; }
  # shellcheck disable=SC2046
  OMP_NUM_THREADS=$threads "$py" bench/accelerate_peer.py finetune --device cpu --task "${task%-lora}" $(peer_flags_of "$task") \
    --seed "$seed" --init "$(field .model.pretrained)" --tokenizer "$(field .tokenizer.path)" \
    --data "$(field .data.dir)" --precision "$(field .train.precision)" --epochs "$(field .train.epochs)" \
    --batch "$(field .data.train_batch_size)" --max-length "$(field .data.max_length)" \
    --lr "$(field .optimizer.lr)" --weight-decay "$(field .optimizer.weight_decay)" \
    --warmup-ratio "$(field .scheduler.warmup_ratio)" 2>"$out/peer-$task-$seed.log"
  rm -f "$out/peer-$task-$seed.log"
}

# TASK SIDE SEED: one run into RESULTS/TASK-SIDE-SEED.json (written only when it finished).
one() {
  local result=$results/$1-$2-$3.json cpu
  cpu="$(lscpu | sed -n 's/^Model name: *//p'), family $(lscpu | sed -n 's/^CPU family: *//p')"
  "$2_side" "$1" "$3" | jq -c --arg cpu "$cpu" --arg task "$1" '. + {cpu: $cpu, task: $task}' >"$out/$1-$2-$3.part" &&
    [[ -s $out/$1-$2-$3.part ]] && jq -e .accuracy "$out/$1-$2-$3.part" >/dev/null &&
    mv "$out/$1-$2-$3.part" "$result" &&
    echo "accuracy_ab: $(date -u +%H:%M:%S) done $1 $2 seed $3: $(jq -c '{accuracy, f1, seconds}' "$result")"
}

if [[ ${1:-} == --one ]]; then out=$2 results=$3 threads=$4; one "$5" "$6" "$7"; exit; fi
while (($#)); do
  case $1 in
    --tasks) tasks=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --table-only) table_only=1; shift ;;
    *) echo "accuracy_ab: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mkdir -p "$out/runs" "$results"
if ((!table_only)); then
  [[ -x build/runner ]] || { echo "accuracy_ab: build/runner is missing (scripts/setup.sh)" >&2; exit 1; }
  # The study keeps the binaries it started with: a rebuild during its hours does not mix two runners.
  # The front finds runner-torch beside it.
  [[ -x $out/runner ]] || cp build/runner build/runner-torch "$out/"
  # The copies are not beside build/python-packages, where scripts/setup.sh put the pretrained MiniLM.
  [[ -n ${RUNNER_PYTHON_PACKAGES:-} || ! -d build/python-packages ]] ||
    export RUNNER_PYTHON_PACKAGES=$PWD/build/python-packages
  "$py" -c 'import torch, transformers, accelerate' 2>/dev/null || {
    echo "accuracy_ab: no peer venv at ${py%/bin/python3} (set PEER_VENV; bench/peer_ab.sh makes one)" >&2; exit 1; }
  echo "accuracy_ab: runner $("$out/runner" --version | head -n1), peer $("$py" -c 'import torch, transformers, accelerate as a
print("torch", torch.__version__, "transformers", transformers.__version__, "accelerate", a.__version__)'),"\
    "$jobs jobs x $threads threads, cpu: $(lscpu | sed -n 's/^Model name: *//p')"
  IFS=, read -ra task_list <<<"$tasks"
  IFS=, read -ra seed_list <<<"$seeds"
  for task in "${task_list[@]}"; do
    recipe_of "$task" >/dev/null
    for seed in "${seed_list[@]}"; do
      for side in peer runner; do  # the peer first: the longer run of the pair starts earlier
        [[ -s $results/$task-$side-$seed.json ]] || echo "$task $side $seed"
      done
    done
  done | xargs -P "$jobs" -L 1 bash "$self" --one "$out" "$results" "$threads" ||
    echo "accuracy_ab: some runs failed; their logs stay in $out" >&2
fi
python3 bench/accuracy_table.py "$results"
