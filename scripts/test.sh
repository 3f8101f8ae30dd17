#!/usr/bin/env bash
# Runs every test suite (one meson test per area, two at a time) and ends with
# one line "N passed, N failed", counting Catch2 test cases over all areas.
# Tests read ../shared through RUNNER_SHARED (default: ../shared beside the project).
#
# cpu-matrix [AREAS...]: the suite once per forced BLAS/oneDNN/kernel code path
# (scripts/cpu_matrix.sh; on demand, several times as long).
#
# --sanitize: the same tests in build-san, built with ASan + UBSan
# (scripts/sanitize_build.sh; shared with scripts/fuzz.sh). Any memory error,
# leak or undefined behaviour fails the test that ran into it. On demand only:
# the build and the run take several times as long (README "Reliability").
#
# Two portability areas, on demand (README "Tests"), each a build of its own:
#   debian13 [--keep] [AREA...]  the suite in a debootstrapped Debian 13 tree
#                                (LibTorch 2.6, Catch2 v3): scripts/portability/debian13.sh
#   pip-torch [AREA...]          the suite against a pip torch 2.x, in build-piptorch:
#                                scripts/portability/pip_torch.sh
# cuda-build: the CUDA build (scripts/build_cuda.sh, ./build-cuda: the runner and every
# test, tests/cuda included) configured and built without a GPU, then checked where no GPU
# is needed (scripts/cuda_build_test.sh; each check one test case). On demand: a first
# build takes about 27 minutes on 2 cores at -j1 (README "CUDA builds"). PIP_TORCH_VENV=DIR reuses
# a venv's CUDA torch; by default build-cuda/venv gets one from pip (about 3 GB).
# TEST_BUILD_DIR=DIR runs the tests of another build folder (default: build).
# RUNNER_BUILD_JOBS=N caps ninja's parallel jobs (a shared machine).
set -uo pipefail
cd "$(dirname "$0")/.."

case ${1:-} in
  cpu-matrix) shift; exec bash scripts/cpu_matrix.sh "$@" ;;  # each CPU's code path
  debian13) shift; exec bash scripts/portability/debian13.sh "$@" ;;
  pip-torch) shift; exec bash scripts/portability/pip_torch.sh "$@" ;;
  cuda-build) shift; exec bash scripts/cuda_build_test.sh "$@" ;;
esac

build=${TEST_BUILD_DIR:-build}
timeout_multiplier=1
if [[ ${1:-} == --sanitize ]]; then
  shift
  build=${SANITIZE_BUILD:-build-san}
  scripts/sanitize_build.sh "$build" || exit 1
  # The pretrained MiniLM that scripts/setup.sh installs beside build/runner: the
  # sanitized runner looks beside itself, so it gets the same packages.
  [[ -e $build/python-packages || ! -d build/python-packages ]] || ln -s ../build/python-packages "$build/python-packages"
  timeout_multiplier=4
  # exitcode 86: a child `runner` that hits a finding must not pass for an expected exit 1.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=86}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp}
fi

export RUNNER_CACHE=${RUNNER_CACHE:-$PWD/$build/test-cache}  # keep test runs off ~/.cache
# Two test areas run at once on the same cores: OpenMP threads that spin while
# waiting would steal the cores from each other (measured: most of the time in libgomp).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
# scripts/setup.sh builds the runner alone; the first test run builds the tests
# (several minutes on 2 cores; through ccache when it is installed).
[[ -x $build/tests/unit_core ]] || echo "test: building the tests (the first time takes a few minutes)" >&2
ninja -C "$build" ${RUNNER_BUILD_JOBS:+-j "$RUNNER_BUILD_JOBS"} >"$build/test-build.log" 2>&1 || {
  grep -E "error|FAILED" "$build/test-build.log" | head -n 30 >&2
  echo "test: the build failed ($build/test-build.log); run scripts/setup.sh" >&2; exit 1; }

# With no test names, everything but the slow suite (the SST-2 end-to-end run).
(($#)) || set -- --no-suite slow
meson test -C "$build" --no-rebuild --num-processes 2 --timeout-multiplier "$timeout_multiplier" \
  --print-errorlogs "$@"
meson_rc=$?

# Catch2's console summary, the same in v2 and v3 (and tests/support/catch_summary.py's):
# "All tests passed (A assertions in N test cases)", or "test cases: N | P passed |
# F failed | S skipped" where a zero column is left out (v3 alone skips, with SKIP).
column() {  # column NAME LINE: the count before " NAME" in a summary row, 0 when absent
  local n
  n=$(grep -oE "\| +[0-9]+ $1( \||\\n|$)" <<<"$2" | grep -oE '[0-9]+' | head -n1)
  echo "${n:-0}"
}
passed=0 failed=0 skipped=0
log=$build/meson-logs/testlog.json
while IFS= read -r line; do
  name=$(grep -oE '"name": "[^"]*"' <<<"$line" | head -n1 | cut -d'"' -f4)
  if all=$(grep -oE 'All tests passed \([0-9]+ assertions? in [0-9]+ test cases?\)' <<<"$line"); then
    n=$(grep -oE 'in [0-9]+' <<<"$all" | grep -oE '[0-9]+')
    passed=$((passed + n))
  elif row=$(grep -oE 'test cases: +[0-9]+( \| +[0-9]+ [a-z ]+)+' <<<"$line" | tail -n1); then
    passed=$((passed + $(column passed "$row")))
    failed=$((failed + $(column failed "$row")))
    skipped=$((skipped + $(column skipped "$row")))
  else
    echo "test: area '$name' ended without a Catch2 summary (crash or timeout): counted as 1 failed"
    failed=$((failed + 1))
  fi
done <"$log"

echo "$passed passed, $failed failed$( ((skipped)) && echo ", $skipped skipped")"
[[ $meson_rc -eq 0 && $failed -eq 0 ]]
