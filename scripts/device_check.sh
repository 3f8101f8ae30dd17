#!/usr/bin/env bash
# Checks a GPU machine in one short run (docs/gpu.md, "Checking a GPU machine in
# one short run"), for a machine that is reachable only for a while and may lack
# ../shared:
#
#   bash scripts/device_check.sh prepare                 beside ../shared: copies what the
#                                                        checks read into .gpu/ (ignored by git),
#                                                        to be copied along with the checkout
#   bash scripts/device_check.sh run LOG_DIR [SECONDS]   on the GPU machine: everything below
#                                                        within SECONDS (default 570)
#
# `run` builds build-cuda with the gpu-kit (.gpu/gpu-kit; ~2 minutes on 16 cores),
# then, in order of value, each step under its own time cap: tests/cuda (with the
# committed fp16 golden), the attention-path test on the wheel's LibTorch 2.x,
# bench/gpu_ab.sh (one round, or fewer steps when time is short), and the smoke
# recipe in fp16, bf16 and fp32. Each step's log goes to LOG_DIR, a line per step
# to LOG_DIR/steps.txt and the machine's description to LOG_DIR/machine.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
kit=.gpu

prepare() {
  local shared=${RUNNER_SHARED:-../shared}
  mkdir -p .git/info && grep -qx "/$kit/" .git/info/exclude 2>/dev/null || echo "/$kit/" >>.git/info/exclude
  rm -rf "$kit" && mkdir -p "$kit/data/glue" "$kit/models" "$kit/golden/tokenization" "$kit/golden/model_parity"
  cp -r "$shared/gpu-kit" "$kit/" && cp -r "$shared/data/glue/MRPC" "$kit/data/glue/" &&
    cp -r "$shared/models/bert-base-uncased" "$kit/models/" && cp -r "$shared/golden/tiny_bert" "$kit/golden/" &&
    cp "$shared/golden/model_parity/batch.json" "$kit/golden/model_parity/" &&
    cp "$shared"/golden/tokenization/mrpc_{train,dev}.jsonl "$kit/golden/tokenization/" && chmod -R u+w "$kit" &&
    echo "device_check: $(du -sh "$kit" | cut -f1) in $kit/; copy it with the checkout, then: bash scripts/device_check.sh run LOG_DIR"
}

run_checks() {
  local out=${1:-} budget=${2:-570} S=$PWD/$kit t0=$SECONDS
  if [[ -z $out ]]; then echo "device_check: run needs a LOG_DIR: bash scripts/device_check.sh run LOG_DIR [SECONDS]" >&2; return 2; fi
  if [[ ! $budget =~ ^[0-9]+$ ]]; then echo "device_check: SECONDS must be a whole number, not '$budget'" >&2; return 2; fi
  if [[ ! -d $S/gpu-kit ]]; then echo "device_check: $kit/gpu-kit is missing: run 'bash scripts/device_check.sh prepare' beside ../shared first" >&2; return 2; fi
  mkdir -p "$out" || { echo "device_check: cannot create LOG_DIR '$out'" >&2; return 2; }
  export RUNNER_SHARED=$S RUNNER_DATA=$S/data RUNNER_MODELS=$S/models HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
  left() { echo $((budget - (SECONDS - t0))); }
  say() { echo "[$((SECONDS - t0))s] $*" | tee -a "$out/steps.txt"; }
  { nvidia-smi; lscpu | grep -E 'Model name|^CPU\(s\)'; git rev-parse --short HEAD
    python3 -c 'import torch, transformers, accelerate as a; print("torch", torch.__version__, "cuda",
      torch.version.cuda, "transformers", transformers.__version__, "accelerate", a.__version__)'
  } >"$out/machine.txt" 2>&1
  say "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
  timeout 330 bash "$S/gpu-kit/build.sh" runner tests/unit_torch >"$out/build.log" 2>&1
  local rc=$?; say "build rc=$rc"
  if ((rc)); then grep -m 20 -E 'error' "$out/build.log"; tail -n 20 "$out/build.log"; return 1; fi
  export LD_LIBRARY_PATH=/opt/runner-deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export RUNNER_FP16_GOLDEN=$PWD/tests/train/golden/trajectory_fp16_cuda.json RUNNER_TEST=1

  timeout 150 ./build-cuda/tests/unit_torch "[cuda]" >"$out/unit_cuda.txt" 2>&1
  say "tests/cuda rc=$?: $(tail -n 2 "$out/unit_cuda.txt" | tr '\n' ' ')"
  timeout 40 ./build-cuda/tests/unit_torch "CPU training draws attention*" >"$out/unit_attention.txt" 2>&1
  say "attention path rc=$?: $(tail -n 2 "$out/unit_attention.txt" | tr '\n' ' ')"

  # gpu_ab's round is ~4 minutes at its defaults; fewer steps when less is left.
  local cap=$(($(left) - 40)) steps=100 warmup=100
  ((cap < 240)) && steps=40 warmup=40
  timeout "$cap" bash bench/gpu_ab.sh --rounds 1 --steps "$steps" --warmup "$warmup" >"$out/gpu_ab.txt" 2>&1
  say "gpu_ab (--steps $steps --warmup $warmup) rc=$?"
  grep -v 'Writing model' "$out/gpu_ab.txt" | tail -n 12

  for p in fp16 bf16 fp32; do
    (($(left) > 15)) || break
    timeout 60 ./build-cuda/runner recipes/smoke/mrpc_smoke.toml --set run.device=cuda \
      --set train.precision=$p >"$out/smoke-$p.txt" 2>&1
    say "smoke $p rc=$?: $(grep -E ' end ' "$out/smoke-$p.txt" | tail -n 1)"
  done
}

case ${1:-} in
  prepare) prepare ;;
  run) shift; run_checks "$@" ;;
  *) echo "device_check: prepare | run LOG_DIR [SECONDS] (see the comment at the top)" >&2; exit 2 ;;
esac
