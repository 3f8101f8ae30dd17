#!/usr/bin/env bash
# model.gradient_checkpointing on the CPU: the runner's peak resident memory
# and wall time for the same few training steps without and with it, rounds
# alternating, and their ratios. BERT-Mini from random weights (no download),
# MRPC, every example padded to 128 tokens so that activations dominate; the
# batch is large enough for them to outweigh the weights and the optimizer.
# (The GPU's figures: bench/gpu_ab.sh, its "gradient_checkpointing" rows.)
#
#   bench/gradient_checkpointing.sh [--rounds 2] [--batch 64] [--steps 4] [--preset bert-mini]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=2 batch=64 steps=4 preset=bert-mini
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    *) echo "gradient_checkpointing: unknown argument $1 (see the top of bench/gradient_checkpointing.sh)" >&2
       exit 2 ;;
  esac
done
runner=${RUNNER:-build/runner}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "gradient_checkpointing: $preset, batch $batch, length 128, $steps steps, $rounds alternating rounds;" \
  "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(lscpu | sed -n 's/^Model name: *//p')"

# GC ROUND: "PEAK_KB SECONDS" of one run.
one_run() {
  local gc=$1 round=$2 out=$work/$1-$2
  /usr/bin/time -f "%M %e" -o "$out.time" "$runner" run recipes/smoke/mrpc_smoke.toml \
    --set "run.output_dir=$work/runs" --set 'run.loggers=["jsonl"]' --set run.device=cpu \
    --set "model.preset=$preset" --set data.max_length=128 --set data.padding=max_length \
    --set "data.train_batch_size=$batch" --set data.max_train_examples=$((batch * steps)) \
    --set "train.max_steps=$steps" --set train.eval_each_epoch=false --set data.eval_split= \
    --set train.checkpoint_every=0 --set train.checkpoint_every_minutes=0 \
    --set "model.gradient_checkpointing=$gc" >"$out.log" 2>&1 || { tail -n 20 "$out.log" >&2; exit 1; }
  cat "$out.time"
}

declare -A peak secs
for ((r = 1; r <= rounds; r++)); do
  for gc in false true; do
    read -r kb s <<<"$(one_run "$gc" "$r")"
    printf "round %d gradient_checkpointing=%-5s peak %7.1f MiB  %6.1f s\n" "$r" "$gc" "$(awk -v k="$kb" 'BEGIN {print k / 1024}')" "$s"
    peak[$gc]+="$kb " secs[$gc]+="$s "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
p0=$(median <<<"${peak[false]}") p1=$(median <<<"${peak[true]}")
s0=$(median <<<"${secs[false]}") s1=$(median <<<"${secs[true]}")
awk -v p0="$p0" -v p1="$p1" -v s0="$s0" -v s1="$s1" 'BEGIN {
  printf "median peak: with / without = %.2f (%.0f / %.0f MiB); time: with / without = %.2f\n",
    p1 / p0, p1 / 1024, p0 / 1024, s1 / s0 }'
