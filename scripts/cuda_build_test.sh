#!/usr/bin/env bash
# bash scripts/test.sh cuda-build: the CUDA build (scripts/build_cuda.sh, ./build-cuda)
# configured, built and checked on a machine without a GPU. Each check below counts as
# one test case, and the output ends with "N passed, N failed" like scripts/test.sh's:
#   build       build_cuda.sh builds the runner and every test, tests/cuda included
#   cuda-linked the runner needs libtorch_cuda, and the CUDA code was compiled in
#   loads       build-cuda/runner --version runs: libtorch_cuda and its CUDA libraries load
#   cuda-tests  unit_torch holds tests/cuda's cases (they need a GPU to run)
#   cpu-train   the smoke recipe trains on the CPU with that runner (a CUDA LibTorch's CPU path)
# What needs a GPU is scripts/cuda_check.sh's. Environment: as scripts/build_cuda.sh's
# (PIP_TORCH_VENV, RUNNER_DEPS_PREFIX, RUNNER_BUILD_JOBS); RUNNER_SHARED for the data.
set -uo pipefail
cd "$(dirname "$0")/.."

build=build-cuda
passed=0 failed=0
check() {  # check NAME COMMAND...: one test case; its status is the command's
  local name=$1 t0=$SECONDS
  shift
  if "$@" >"$build/check-$name.log" 2>&1; then
    passed=$((passed + 1)); echo "cuda-build: $name passed ($((SECONDS - t0)) s)"; return 0
  fi
  failed=$((failed + 1)); echo "cuda-build: $name FAILED ($((SECONDS - t0)) s), log $build/check-$name.log:"
  tail -n 15 "$build/check-$name.log" | sed 's/^/  /'
  return 1
}

# The full runner needs libtorch_cuda (linked --no-as-needed: its static initialisers
# register the CUDA kernels), and the sources were compiled with the CUDA code on.
cuda_linked() {
  readelf -d "$build/runner-torch" | grep -E 'NEEDED.*lib(torch_cuda|c10_cuda)\.so' &&
    grep -q -- '-DRUNNER_WITH_CUDA=1' "$build/compile_commands.json" &&
    echo "NCCL process groups: $(grep -q -- '-DRUNNER_WITH_NCCL=1' "$build/compile_commands.json" && echo yes || echo no)"
}

# Catch2 v2 lists bare names with --list-test-names-only (its exit code is the
# count), v3 with --list-tests --verbosity quiet (v2 has no such option).
cuda_tests() {
  local names n
  names=$("$build/tests/unit_torch" "[cuda]" --list-test-names-only 2>/dev/null)
  grep -q '^cuda: ' <<<"$names" ||
    names=$("$build/tests/unit_torch" "[cuda]" --list-tests --verbosity quiet)
  n=$(grep -c '^cuda: ' <<<"$names")
  echo "tests/cuda cases in unit_torch: $n"
  ((n == $(cat tests/cuda/*.cpp | grep -c '^TEST_CASE("cuda: ')))
}

# Two epochs of bert-tiny on 256 MRPC pairs (recipes/smoke), in a folder removed after.
cpu_train() {
  local runs rc=0
  runs=$(mktemp -d)
  timeout 600 "$build/runner" recipes/smoke/mrpc_smoke.toml --set run.device=cpu \
    --set run.output_dir="$runs" 2>&1 | tee "$runs.log" || rc=1  # the log lines are on stderr
  grep -q 'end completed' "$runs.log" || rc=1
  rm -rf "$runs" "$runs.log"
  return $rc
}

(($# == 0)) || { echo "cuda-build: takes no arguments (got '$*'); it reads PIP_TORCH_VENV, RUNNER_DEPS_PREFIX and RUNNER_BUILD_JOBS from the environment" >&2; exit 2; }
mkdir -p "$build"
start=$SECONDS
if check build bash scripts/build_cuda.sh; then
  check cuda-linked cuda_linked
  check loads "$build/runner-torch" --version
  check cuda-tests cuda_tests
  check cpu-train cpu_train
fi
echo "cuda-build: $((SECONDS - start)) s in all"
echo "$passed passed, $failed failed"
((failed == 0))
