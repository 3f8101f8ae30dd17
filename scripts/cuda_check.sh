#!/usr/bin/env bash
# On a CUDA machine, after scripts/build_cuda.sh: runs tests/cuda (NCCL
# collectives, data-parallel gradients over NCCL, autocast, optimizer offload),
# trains the smoke recipe on the GPU in fp32, fp16 (loss scaling) and bf16, with
# optimizer offload, and through `runner launch` (one worker), then (when Python
# has transformers) checks Hugging Face interop both ways:
# a folder written by save_pretrained trains with recipes/mrpc_fp16.toml, and the
# run's final/ folder loads with from_pretrained and gives runner predict's logits.
# Each step prints its result; the exit code is the number of failed steps.
set -uo pipefail
cd "$(dirname "$0")/.."
R=./build-cuda/runner
failed=0
step() { echo "== $1"; shift; if "$@"; then echo "ok"; else echo "FAILED"; failed=$((failed + 1)); fi; }
completed() { grep -q ' end completed' "$1" && grep -E ' eval | end ' "$1" | tail -3; }
smoke() {
  local log; log=$(mktemp)
  timeout 300 $R recipes/smoke/mrpc_smoke.toml --set run.device=cuda "$@" >"$log" 2>&1
  completed "$log"
}
# The fp16 golden for tests/cuda (Accelerate's mixed_precision="fp16" on this GPU),
# unless one is committed; tests/train/golden/README.md says how it is made.
fp16_golden=tests/train/golden/trajectory_fp16_cuda.json
if [[ ! -f $fp16_golden ]]; then
  fp16_golden=build-cuda/trajectory_fp16_cuda.json
  step "fp16 golden (Transformers + Accelerate on this GPU)" python3 scripts/golden/mixed_precision_trajectory.py \
    --precision fp16 --device cuda --shared "${RUNNER_SHARED:-../shared}" --out "$fp16_golden"
fi
export RUNNER_FP16_GOLDEN=$fp16_golden
step "tests/cuda" ./build-cuda/tests/unit_torch "[cuda]"
step "smoke fp32" smoke --set train.precision=fp32
step "smoke fp16 (loss scaling)" smoke --set train.precision=fp16
step "smoke bf16" smoke --set train.precision=bf16
step "smoke, optimizer offloaded to the host" smoke --set topology.offload=optimizer
launched() {
  local log; log=$(mktemp)
  timeout 300 $R launch --nproc-per-node 1 recipes/smoke/mrpc_smoke.toml --set run.device=cuda >"$log" 2>&1
  completed "$log"
}
step "runner launch, one worker on the GPU" launched
if python3 -c 'import transformers' 2>/dev/null; then
  hf=$(mktemp -d)
  step "save_pretrained folder" python3 scripts/hf_interop.py make "$hf/base"
  fp16() {
    local log; log=$(mktemp)
    timeout 600 $R recipes/mrpc_fp16.toml --set model.pretrained="$hf/base" --set train.epochs=1 >"$log" 2>&1
    completed "$log" && sed -n 's/^run directory: //p' "$log" >"$hf/run_dir"
  }
  step "mrpc_fp16 from that folder, 1 epoch" fp16
  back() {
    local final; final=$(cat "$hf/run_dir")/final
    python3 scripts/hf_interop.py pairs "$hf/pairs.jsonl" &&
      $R predict --model "$final" --input "$hf/pairs.jsonl" >"$hf/pred.jsonl" &&
      python3 scripts/hf_interop.py compare "$final" "$hf/pairs.jsonl" "$hf/pred.jsonl"
  }
  step "final/ loads in transformers with runner predict's logits" back
fi
echo "$failed step(s) failed"
exit "$failed"
