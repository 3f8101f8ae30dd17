#!/usr/bin/env bash
# Issue 32's table, re-run: does a mixed-precision run evaluate the model it
# trained? Each row trains a shipped BERT-Mini recipe, then evaluates its final/
# folder in a new process in fp32 (`runner predict`, cross-entropy computed here
# from the printed logits). In-training, final and fp32 evaluations of the same
# weights must agree to within bf16's rounding (a few thousandths).
#
#   bench/precision_table.sh [BUILD_DIR=build]   (about 15 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${RUNNER_DATA:-../shared/data}/glue
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# dev.tsv as predict's JSONL input, and the labels beside it.
python3 - "$data" "$work" <<'PY'
import csv, json, sys
data, work = sys.argv[1:]
for task, a, b, label in (("MRPC", 3, 4, 0), ("SST-2", 0, None, 1)):
    with open(f"{data}/{task}/dev.tsv", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    with open(f"{work}/{task}.jsonl", "w") as out, open(f"{work}/{task}.labels", "w") as lab:
        for r in rows:
            out.write(json.dumps({"text_a": r[a], **({"text_b": r[b]} if b is not None else {})}) + "\n")
            lab.write(r[label] + "\n")
PY

# run NAME TASK RECIPE SETTINGS...: one row of the table.
run() {
  local name=$1 task=$2 recipe=$3; shift 3
  local args=(--set "run.output_dir=$work/$name" --set 'run.loggers=["jsonl"]')
  for s in "$@"; do args+=(--set "$s"); done
  "$build/runner" run "$recipe" "${args[@]}" >"$work/$name.log" 2>&1 || { tail -n 20 "$work/$name.log" >&2; exit 1; }
  local dir; dir=$(dirname "$(ls "$work/$name"/*/*/summary.json)")
  "$build/runner" predict --model "$dir/final" --input "$work/$task.jsonl" --max-length 128 >"$work/$name.pred"
  python3 - "$name" "$dir" "$work/$name.pred" "$work/$task.labels" <<'PY'
import json, math, sys
name, run_dir, pred, labels = sys.argv[1:]
events = [json.loads(l) for l in open(f"{run_dir}/metrics.jsonl")]
evals = [e for e in events if e.get("event") == "eval"]
end = next(e for e in events if e.get("event") == "end")
gold = [int(l) for l in open(labels)]
loss = correct = 0
for line, y in zip(open(pred), gold):
    z = json.loads(line)["logits"]
    m = max(z)
    loss += m + math.log(sum(math.exp(v - m) for v in z)) - z[y]
    correct += int(z.index(max(z)) == y)
n = len(gold)
last = f"{evals[-1]['loss']:.4f} @{evals[-1]['step']}" if evals else "-"
final = end.get("final") or {}
print(f"{name:<22} {last:>16} {final.get('loss', float('nan')):>12.4f} {loss / n:>12.4f} {correct / n:>10.4f}")
PY
}

printf '%-22s %16s %12s %12s %10s\n' run "in-training eval" "final eval" "fp32 final/" "fp32 acc"
run mrpc_bf16_eval23 MRPC recipes/mrpc_bert_mini.toml train.epochs=1 train.precision=bf16 train.eval_every=23
run mrpc_bf16_final_only MRPC recipes/mrpc_bert_mini.toml train.epochs=1 train.precision=bf16 \
  train.eval_every=0 train.eval_each_epoch=false
run mrpc_fp32 MRPC recipes/mrpc_bert_mini.toml train.epochs=1 train.eval_every=23
run sst2_bf16_400 SST-2 recipes/sst2_bert_mini.yaml train.max_steps=400 train.precision=bf16 train.eval_every=0
run sst2_fp32_400 SST-2 recipes/sst2_bert_mini.yaml train.max_steps=400 train.eval_every=0
