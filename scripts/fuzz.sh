#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with ASan + UBSan and runs each for
# SECONDS (default 60), per input at most 1 s and 1 GB. Prints one table row
# per target (Markdown, for docs/dev/reliability.md) and exits 1 when any target
# found a crash, a hang, a leak or an input over the memory limit.
#
#   scripts/fuzz.sh [--install] [SECONDS] [TARGET...]
#
# --install runs apt-get for clang-14, libfuzzer-14-dev and libclang-rt-14-dev
# when they are missing. The build goes to build-san (shared with
# `scripts/test.sh --sanitize`; FUZZ_BUILD overrides it), the corpora, findings
# and logs to $FUZZ_OUT (default build-san/fuzz-out). Corpora grow across runs.
set -uo pipefail
cd "$(dirname "$0")/.."

install=0
if [[ ${1:-} == --install ]]; then install=1; shift; fi
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a whole number, found '$seconds'" >&2; exit 2; }
(($#)) && shift
build=${FUZZ_BUILD:-build-san}
out=${FUZZ_OUT:-$build/fuzz-out}
shared=${RUNNER_SHARED:-$PWD/../shared}

# The toolchain: clang 14 and its fuzzer runtime (libclang-rt-14-dev holds it;
# libfuzzer-14-dev adds the headers and the standalone libFuzzer).
runtime=$(ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null | head -n1)
if ! command -v clang++-14 >/dev/null || [[ -z $runtime ]]; then
  if ((install)); then
    apt-get install -y clang-14 libfuzzer-14-dev libclang-rt-14-dev || exit 1
  else
    echo "fuzz: needs clang++-14 and libFuzzer's runtime; install them with" >&2
    echo "  apt-get install clang-14 libfuzzer-14-dev libclang-rt-14-dev   (or: scripts/fuzz.sh --install)" >&2
    exit 1
  fi
fi

scripts/sanitize_build.sh "$build" || exit 1
# Reconfiguring regenerates the unity sources and rebuilds both libraries: only when needed.
grep -q "fuzz/runner_fuzz:" "$build/build.ninja" ||
  meson configure "$build" -Dfuzz=true >/dev/null || exit 1  # a gcc build-san cannot: says so
echo "fuzz: building $build/fuzz/runner_fuzz (log: $build/fuzz-build.log)" >&2
start=$SECONDS
nice -n 19 ninja -C "$build" fuzz/runner_fuzz >"$build/fuzz-build.log" 2>&1 || {
  grep -E "error|FAILED" "$build/fuzz-build.log" | head -n 30 >&2; echo "fuzz: the build failed" >&2; exit 1; }
echo "fuzz: built in $((SECONDS - start)) s" >&2

fuzzer=$build/fuzz/runner_fuzz
mapfile -t all < <("$fuzzer" 2>&1 | awk '/^  [a-z_]+ /{print $1}')
(($#)) || set -- "${all[@]}"
run_id=$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out"
rm -rf "$out/seeds"
python3 fuzz/make_seeds.py "$out/seeds" "$PWD" "$shared" || exit 1

export HF_HUB_OFFLINE=1 RUNNER_CACHE=$PWD/$out/cache OMP_NUM_THREADS=1
# Findings must stop the input that caused them: UB too, not only memory errors.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp}

# Last value of FIELD ("exec/s:", "corp:") on libFuzzer's status lines.
field() { grep -oE "$1 [0-9/]+" "$2" | tail -n1 | awk '{print $2}'; }

echo "| target | seconds | executions | exec/s | corpus | crashes | hangs > 1 s | > 1 GB | leaks |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
found=0
for t in "$@"; do
  corpus=$out/corpus/$t artifacts=$out/findings/$run_id/$t log=$out/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$out/logs" "$out/scratch/$t"
  # fork=1: a crash, hang or OOM is recorded and fuzzing goes on in a fresh
  # process, so one finding does not end the target's time.
  RUNNER_FUZZ_TARGET=$t RUNNER_FUZZ_SCRATCH=$PWD/$out/scratch/$t \
    nice -n 19 "$fuzzer" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=1 -max_len=65536 \
    -artifact_prefix="$artifacts/" "$corpus" "$out/seeds/$t" >"$log" 2>&1
  rm -rf "$out/scratch/$t"
  execs=$(grep -oE '^#[0-9]+' "$log" | tail -n1 | tr -d '#')
  crashes=$(find "$artifacts" -name 'crash-*' | wc -l)
  hangs=$(find "$artifacts" -name 'timeout-*' | wc -l)
  ooms=$(find "$artifacts" -name 'oom-*' | wc -l)
  leaks=$(find "$artifacts" -name 'leak-*' | wc -l)
  per_s=$(( ${execs:-0} / (seconds > 0 ? seconds : 1) ))
  echo "| $t | $seconds | ${execs:-0} | $per_s | $(ls "$corpus" | wc -l) | $crashes | $hangs | $ooms | $leaks |"
  ((crashes + hangs + ooms + leaks)) && found=1
  # A target that ran nothing (a missing seed folder, a fuzzer that exits at once)
  # proves nothing: it fails rather than showing a row of zeros as a pass.
  if ((seconds > 0 && ${execs:-0} == 0)); then
    echo "fuzz: $t ran no input; its log says: $(tail -n1 "$log")" >&2
    found=1
  fi
done
echo "fuzz: $(date -u +%F) on $(nproc --all) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); logs in $out/logs"
if ((found)); then
  echo "fuzz: findings in $out/findings/$run_id/<target>/; once fixed, keep each as a regression input:" >&2
  echo "  cp $out/findings/$run_id/TARGET/FILE tests/fuzz/TARGET/   (replayed by scripts/test.sh fuzz)" >&2
  exit 1
fi
