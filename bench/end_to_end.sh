#!/usr/bin/env bash
# The end-to-end check of bench/step's figures: one epoch of each shipped
# BERT-Mini recipe run as a user runs it (`runner run RECIPE`, its evaluation and
# checkpoints included), beside step_bench's runner samples/s on the same
# recipe's batches, measured one after the other in this script. The last
# column (end-to-end / bench) says how much of the bench's step speed a real run
# keeps; the bench's own ratio to the reference is printed with it.
#
#   bench/end_to_end.sh [BUILD_DIR=build]      (SST-2's epoch takes several minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "mrpc-fp32  10 | reference  53.7 samples/s ... | runner  67.2 samples/s ... | 1.27x ..."
bench_line() { "$build/bench/step_bench" --steps 10 --pairs 3 --cases "$1" | grep "^$1 "; }
field() { sed -E "s/.*\\| $1 +([0-9.]+) samples\\/s.*/\\1/" <<<"$2"; }

printf '%-10s %-28s %14s %10s %16s %12s\n' case recipe bench_runner bench_ratio end_to_end e2e/bench
for row in "mrpc-fp32 recipes/mrpc_bert_mini.toml" "sst2-fp32 recipes/sst2_bert_mini.yaml"; do
  read -r name recipe <<<"$row"
  line=$(bench_line "$name")
  runner_sps=$(field runner "$line")
  ratio=$(grep -oE '[0-9.]+x' <<<"$line" | head -n1)
  "$build/runner" run "$recipe" --set train.epochs=1 --set "run.output_dir=$work" \
    --set 'run.loggers=["jsonl"]' >"$work/$name.log" 2>&1 || {
    tail -n 20 "$work/$name.log" >&2; exit 1; }
  e2e_sps=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples_per_s"])' \
    "$(ls "$work"/*/*/summary.json | tail -n1)")
  printf '%-10s %-28s %14.1f %10s %16.1f %12.2f\n' "$name" "$recipe" "$runner_sps" "$ratio" "$e2e_sps" \
    "$(/usr/bin/python3 -c "print($e2e_sps / $runner_sps)")"
  rm -rf "${work:?}"/*/
done
