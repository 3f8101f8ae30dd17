#!/usr/bin/env bash
# How much does recipes/sst2_bert_mini.yaml's final dev accuracy move with the
# seed? Trains the recipe once per seed, changing nothing else:
#
#   scripts/sst2_seed_study.sh OUT_DIR SEED...
#
# JOBS runs at a time (default 2), each with THREADS intra-op threads (default
# 1, so two runs fill this 2-core machine); RUNNER (default build/runner) and
# DEVICE (default cpu) pick the binary and the device. Writes one JSON line per
# run to OUT_DIR/results.jsonl (seed, final and best dev accuracy, seconds) and
# prints the mean and spread. The run directories go under OUT_DIR/runs.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1; shift
mkdir -p "$out"
R=${RUNNER:-./build/runner}
jobs=${JOBS:-2}

one_seed() {
  local log="$out/seed-$1.log"
  $R recipes/sst2_bert_mini.yaml --set run.seed="$1" --set run.threads="${THREADS:-1}" \
    --set run.device="${DEVICE:-cpu}" --set run.output_dir="$out/runs" >"$log" 2>&1 ||
    { echo "seed $1 failed: $(tail -2 "$log")" >&2; return; }
  local dir; dir=$(sed -n 's/^run directory: //p' "$log" | tail -1)
  /usr/bin/env python3 - "$dir/summary.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(json.dumps({"seed": int(sys.argv[2]), "accuracy": s["final"]["accuracy"],
                  "best": s["best"]["value"], "best_step": s["best"]["step"],
                  "train_seconds": round(s["train_seconds"], 1)}))
PY
}

for s in "$@"; do
  while [ "$(jobs -r | wc -l)" -ge "$jobs" ]; do sleep 1; done
  one_seed "$s" >>"$out/results.jsonl" &
  # The first run alone for a while, so that it writes the token cache the others read.
  [ "$s" = "$1" ] && sleep 30
done
wait
/usr/bin/env python3 - "$out/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for key in ("accuracy", "best"):
    acc = sorted(r[key] for r in rows)
    if len(acc) < 2: continue
    print(f"{'final' if key == 'accuracy' else 'best':>5} dev accuracy over {len(acc)} seeds: "
          f"mean {statistics.mean(acc):.4f} sd {statistics.stdev(acc):.4f} min {acc[0]:.4f} "
          f"median {statistics.median(acc):.4f} max {acc[-1]:.4f}; >= 0.80 in "
          f"{sum(a >= 0.80 for a in acc)} of {len(acc)}")
PY
