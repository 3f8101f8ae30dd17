#!/usr/bin/env bash
# The runner against Transformers + Accelerate on one CUDA card, side by side:
# BERT-base from one random init (a folder both start from, written by the
# peer: no pretrained weights on these machines), MRPC, batch 32, max length
# 128, dynamic padding, in fp32, fp16 and bf16, rounds alternating (runner,
# peer, runner, peer ...), the first WARMUP optimizer steps of each process left
# out of the timing. Then the per-step losses of both over 30 steps with dropout
# off (fp32), and one row at batch 256 with every example padded to 128 on both
# sides (the card, not the launches, is the limit). bench/gpu_ab_table.py
# prints the table. Before all of them, the whole job's rows (job_round below),
# each printed when measured. The warm-up covers the runner's CUDA graph captures: each
# padded length (a multiple of 32) runs eagerly three times, then is captured on
# its fourth batch. At batch 32, MRPC's batches pad to 96 but for about 5 an epoch
# that pad to 128, whose capture comes near step 70-95 (three random orders), so 100
# steps; the epoch's last batch (20 examples, step 115) is a shape of its own and
# still runs eagerly inside the window.
#
#   bench/gpu_ab.sh [--rounds 3] [--steps 100] [--warmup 100]
#   bench/gpu_ab.sh --check   (no GPU: the runner's half only, BERT-Mini on the
#                              CPU for a few steps, to check this script's plumbing)
#
# Needs on the GPU machine: python3 with torch, transformers and accelerate (the
# peer, bench/accelerate_peer.py), nvidia-smi, and build-cuda/runner
# (scripts/build_cuda.sh, run here when it is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 steps=100 warmup=100 check=0
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --check) check=1 rounds=1 steps=4 warmup=2; shift ;;
    *) echo "gpu_ab: unknown argument $1 (see the comment at the top of bench/gpu_ab.sh)" >&2; exit 2 ;;
  esac
done
((steps % warmup == 0)) || { echo "gpu_ab: --steps must be a multiple of --warmup (the log interval)" >&2; exit 2; }
shared=${RUNNER_SHARED:-../shared}
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runner=build-cuda/runner
((check)) && runner=build/runner
[[ -x $runner ]] || bash scripts/build_cuda.sh >"$work/build.log" 2>&1 || {
  tail -n 30 "$work/build.log" >&2; exit 1; }

# Runs CMD, writing into OUT the peak memory.used of GPU 0 meanwhile, less what
# was in use before (MiB).
with_gpu_peak() {
  local out=$1; shift
  if ((check)); then "$@"; local rc=$?; echo 0 >"$out"; return $rc; fi
  local before; before=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0)
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 -lms 100 >"$out.samples" &
  local poll=$! rc=0
  "$@" || rc=$?
  kill "$poll" 2>/dev/null; wait "$poll" 2>/dev/null || true
  sort -n "$out.samples" | tail -n1 | awk -v b="$before" '{print $1 - b}' >"$out"
  return $rc
}

# CASE ROUND PRECISION STEPS LOG_EVERY [--set ...]: the runner's metrics.jsonl into CASE/r-ROUND.jsonl.
runner_round() {
  local case=$1 round=$2 precision=$3 total=$4 log_every=$5; shift 5
  local dir=$work/runs-$case-$round out=$work/$case/r-$round
  local model=(--set "model.pretrained=$work/init")
  ((check)) && model=(--set 'model.pretrained=""' --set model.preset=bert-mini --set run.device=cpu)
  with_gpu_peak "$out.mib" "$runner" run recipes/mrpc_fp16.toml --set "run.output_dir=$dir" \
    --set 'run.loggers=["jsonl"]' "${model[@]}" --set "train.precision=$precision" \
    --set "train.max_steps=$total" --set "train.log_every=$log_every" --set train.eval_each_epoch=false \
    --set train.checkpoint_every=0 "$@" >"$out.log" 2>&1 || { tail -n 20 "$out.log" >&2; exit 1; }
  cp "$(ls "$dir"/*/*/metrics.jsonl)" "$out.jsonl"
  rm -rf "$dir"
}

# CASE ROUND PRECISION [peer flags...]: the peer's JSON line into CASE/p-ROUND.json.
peer_round() {
  local case=$1 round=$2 precision=$3; shift 3
  ((check)) && return 0
  local out=$work/$case/p-$round
  with_gpu_peak "$out.mib" "$py" bench/accelerate_peer.py train --init "$work/init" \
    --tokenizer "$shared/models/bert-base-uncased" --data "$shared/data/glue/MRPC" \
    --precision "$precision" "$@" >"$out.json" 2>"$out.log" || { tail -n 20 "$out.log" >&2; exit 1; }
}

# Dense peaks of the usual cards by name; fp32 without TF32 (PyTorch's default for matmul).
card_peaks() {
  local name; name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null || echo "no GPU")
  case $name in
    *H100*PCIe*) echo "$name|51.2e12|756e12" ;;
    *H100*|*H200*) echo "$name|66.9e12|989.4e12" ;;
    *A100*) echo "$name|19.5e12|312e12" ;;
    *) echo "$name|0|0" ;;
  esac
}

((check)) || "$py" bench/accelerate_peer.py init --config "$shared/models/bert-base-uncased" --out "$work/init"
IFS='|' read -r card peak32 peak16 <<<"$(card_peaks)"
echo "gpu_ab: $rounds alternating rounds of $steps timed steps after $warmup warm-up steps; commit" \
  "$(git rev-parse --short HEAD)"
((check)) || nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0 | sed 's/^/driver /'
((check)) || "$py" -c 'import torch, transformers, accelerate as a; print("peer: torch", torch.__version__,
  "CUDA", torch.version.cuda, "transformers", transformers.__version__, "accelerate", a.__version__)'

# The whole job a user runs comes first: the flagship recipe as shipped (3
# epochs, evaluation each epoch, its checkpoints) against the peer doing the same
# work (evaluation each epoch, accelerator.save_state() after the steps where the
# runner's metrics.jsonl says it took a checkpoint), process wall time from start
# to exit. Each row is printed as soon as it is measured.
seconds_now() { date +%s.%N; }
# METRICS: "STEPS STALL": the steps the runner checkpointed (comma-separated)
# and the summed stall_s of those checkpoints.
checkpoint_steps() {
  "$py" - "$1" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
taken = [e for e in events if e.get("event") == "checkpoint"]
print(",".join(str(e["step"]) for e in taken) or "-", sum(e.get("stall_s", 0.0) for e in taken))
PY
}
job_round() {
  local precision=$1 round=$2 dir=$work/job-$precision-$round
  local model=(--set "model.pretrained=$work/init")
  ((check)) && model=(--set 'model.pretrained=""' --set model.preset=bert-mini --set run.device=cpu
                      --set train.max_steps=6 --set train.checkpoint_every=3)
  local began runner_s peer_s=0 steps stall
  began=$(seconds_now)
  "$runner" run recipes/mrpc_fp16.toml --set "run.output_dir=$dir" "${model[@]}" \
    --set "train.precision=$precision" >"$dir.log" 2>&1 || { tail -n 20 "$dir.log" >&2; exit 1; }
  runner_s=$(awk -v a="$began" -v b="$(seconds_now)" 'BEGIN {print b - a}')
  read -r steps stall <<<"$(checkpoint_steps "$(ls "$dir"/*/*/metrics.jsonl)")"
  if ((!check)); then
    began=$(seconds_now)
    "$py" bench/accelerate_peer.py finetune --epochs 3 --eval-each-epoch --save-state-at "${steps//-/}" \
      --save-dir "$dir/peer-states" --init "$work/init" --tokenizer "$shared/models/bert-base-uncased" \
      --data "$shared/data/glue/MRPC" --precision "$precision" >"$dir.peer.json" 2>"$dir.peer.log" || {
      tail -n 20 "$dir.peer.log" >&2; exit 1; }
    peer_s=$(awk -v a="$began" -v b="$(seconds_now)" 'BEGIN {print b - a}')
  fi
  awk -v p="$precision" -v r="$round" -v rs="$runner_s" -v ps="$peer_s" -v st="$steps" -v sl="$stall" 'BEGIN {
    printf "job %s round %d: runner %.1f s (checkpoints at steps %s, loop stall %.2f s), peer %.1f s", p, r, rs, st, sl, ps
    if (ps > 0) printf ", peer/runner %.2fx (target >= 3)", ps / rs
    printf "\n" }'
  rm -rf "$dir"
}
for ((r = 1; r <= rounds; r++)); do
  for precision in fp16 bf16; do
    ((check)) && [[ $precision == fp16 ]] && continue  # fp16 autocast is CUDA only
    job_round "$precision" "$r"
  done
done

for precision in fp32 fp16 bf16; do
  case=1-$precision
  [[ $precision == fp16 ]] && case=2-fp16
  [[ $precision == bf16 ]] && case=3-bf16
  ((check)) && [[ $precision == fp16 ]] && continue  # fp16 autocast is CUDA only
  mkdir -p "$work/$case"
  for ((r = 1; r <= rounds; r++)); do
    runner_round "$case" "$r" "$precision" $((warmup + steps)) "$warmup"
    peer_round "$case" "$r" "$precision" --steps "$steps" --warmup "$warmup"
  done
done

mkdir -p "$work/losses"
nodrop=(--set model.hidden_dropout_prob=0 --set model.attention_probs_dropout_prob=0
        --set model.classifier_dropout=0)
runner_round losses 1 fp32 30 1 "${nodrop[@]}"
peer_round losses 1 fp32 --steps 30 --warmup 0 --no-dropout --log-losses

mkdir -p "$work/4-b256-bf16"
fixed=(--set data.train_batch_size=256 --set data.padding=max_length --set model.execution=padded)
runner_round 4-b256-bf16 1 bf16 $((warmup + steps / 2)) "$warmup" "${fixed[@]}"
peer_round 4-b256-bf16 1 bf16 --steps $((steps / 2)) --warmup "$warmup" --batch 256 --fixed-length

# model.gradient_checkpointing at the same batch: the runner's peak GPU memory
# and speed without and with it (each row printed as measured; the table below
# repeats the speed as "no peer" rows).
for gc in false true; do
  mkdir -p "$work/5-b256-gc-$gc"
  runner_round "5-b256-gc-$gc" 1 bf16 $((warmup + steps / 2)) "$warmup" "${fixed[@]}" \
    --set "model.gradient_checkpointing=$gc"
  echo "gradient_checkpointing=$gc, batch 256 bf16: runner peak $(cat "$work/5-b256-gc-$gc/r-1.mib") MiB"
done

"$py" bench/gpu_ab_table.py "$work" "$warmup" "$card" "$peak32" "$peak16"
