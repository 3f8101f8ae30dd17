#!/usr/bin/env bash
# What the mlflow logger costs a training run: BERT-Mini on MRPC (60 steps,
# logging every step, so that the logger has the most to send) with
# run.loggers = ["jsonl"] and with ["jsonl", "mlflow"] against a real
# `mlflow server` on loopback, rounds alternating, and the ratio of the medians
# of the runs' samples/s (summary.json; 1.00 means no cost). Needs the venv that
# `bash scripts/test.sh mlflow-server` makes (build/mlflow-venv) and an idle
# machine.
#
#   bench/mlflow_overhead.sh [--rounds 3] [--steps 60]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 steps=60
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    *) echo "mlflow_overhead: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
venv=${RUNNER_MLFLOW_VENV:-build/mlflow-venv}
[[ -x $venv/bin/mlflow ]] || { echo "mlflow_overhead: no $venv (bash scripts/test.sh mlflow-server makes it)" >&2; exit 1; }
work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid "$venv/bin/mlflow" server --host 127.0.0.1 --port "$port" --workers 1 \
  --backend-store-uri "sqlite:///$work/mlflow.db" --artifacts-destination "$work/artifacts" >"$work/server.log" 2>&1 &
server=$!
trap 'kill -TERM -- "-$server" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.5; done

# LOGGERS ROUND: one run; prints its samples/s.
one_run() {
  local out=$work/$1-$2
  MLFLOW_TRACKING_URI=http://127.0.0.1:$port build/runner recipes/mrpc_bert_mini.toml \
    --set "run.output_dir=$out" --set "run.loggers=$1" --set "train.max_steps=$steps" \
    --set train.log_every=1 --set train.checkpoint_every=0 >"$out.log" 2>&1 || { tail -n 20 "$out.log" >&2; exit 1; }
  jq .samples_per_s "$out"/*/*/summary.json
}

echo "mlflow_overhead: $rounds alternating rounds of $steps BERT-Mini MRPC steps, runner $(git rev-parse --short HEAD)," \
  "mlflow $("$venv/bin/mlflow" --version | awk '{print $NF}'), cpu: $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1 /proc/loadavg)"
one_run jsonl 0 >/dev/null  # untimed: the token cache and the page cache warm up
plain=() tracked=()
for ((r = 1; r <= rounds; r++)); do
  plain+=("$(one_run jsonl "$r")")
  tracked+=("$(one_run jsonl,mlflow "$r")")
  echo "round $r: jsonl ${plain[-1]} samples/s, jsonl+mlflow ${tracked[-1]} samples/s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
awk -v a="$(median "${tracked[@]}")" -v b="$(median "${plain[@]}")" \
  'BEGIN {printf "median samples/s: jsonl %.1f, jsonl+mlflow %.1f; ratio (with / without mlflow) %.3f\n", b, a, a / b}'
