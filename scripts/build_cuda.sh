#!/usr/bin/env bash
# Builds ./build-cuda against a CUDA LibTorch: the folder of a LibTorch zip, or the
# package folder of a pip-installed torch (it ships include/ and lib/).
#   scripts/build_cuda.sh [TORCH_PREFIX] [extra meson setup arguments...]
# Without TORCH_PREFIX, python3's torch is used. NCCL process groups are built when
# nccl.h is found (on the compiler path, or in the nvidia-nccl pip package).
# The other dependencies (toml++, yaml-cpp, fmt, ...) are those scripts/setup.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')}
shift || true
nccl_h=$(python3 -c 'import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], "include"))' \
         2>/dev/null || true)
args=(-Dtorch_prefix="$prefix")
[[ -n $nccl_h && -f $nccl_h/nccl.h ]] && args+=(-Dnccl_include="$nccl_h")
[[ -f build-cuda/build.ninja ]] || meson setup build-cuda "${args[@]}" "$@"
ninja -C build-cuda
