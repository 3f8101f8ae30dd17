#!/usr/bin/env bash
# Trains the smoke recipe with the tensorboard logger, once straight through and
# once killed and resumed, and reads the event files back with read_events.py
# (python3-protobuf, installed here when missing and this runs as root).
# usage: tensorboard_reader.sh SOURCE_ROOT BUILD_ROOT
set -uo pipefail
src=$1 build=$2
work=$build/test-tmp/tensorboard-reader
rm -rf "$work" && mkdir -p "$work"

fail() {
  echo "tensorboard_reader: $*" >&2
  echo "test cases: 1 | 0 passed | 1 failed"
  exit 1
}

# Fails with MESSAGE and the end of LOG, so that a CI output says why.
fail_with_log() {
  fail "$1; the end of $2:
$(tail -n 8 "$2")"
}

if ! /usr/bin/python3 -c "import google.protobuf" 2>/dev/null || ! command -v protoc >/dev/null; then
  [[ $(id -u) -eq 0 ]] || fail "python3-protobuf and protobuf-compiler are needed (apt-get install them)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-protobuf \
    protobuf-compiler >"$work/apt.log" 2>&1 || fail "apt-get install python3-protobuf failed; see $work/apt.log"
fi

"$build/runner" run "$src/recipes/smoke/mrpc_smoke.toml" --set "run.output_dir=$work/runs" \
  --set run.loggers=jsonl,tensorboard --set train.log_every=2 >"$work/run.log" 2>&1 ||
  fail_with_log "the smoke run failed" "$work/run.log"
run_dir=$(ls -d "$work"/runs/mrpc_smoke/*/ | head -n1)

# The same run killed after step 24 (its newest checkpoint is step 16's), then resumed.
RUNNER_TEST_KILL_AT_STEP=24 "$build/runner" run "$src/recipes/smoke/mrpc_smoke.toml" \
  --set "run.output_dir=$work/resumed" --set run.loggers=jsonl,tensorboard --set train.log_every=2 \
  >"$work/killed.log" 2>&1
resumed_dir=$(ls -d "$work"/resumed/mrpc_smoke/*/ 2>/dev/null | head -n1)
[[ -n $resumed_dir ]] || fail "the run to be killed made no run directory; see $work/killed.log"
"$build/runner" resume "${resumed_dir%/}" >"$work/resume.log" 2>&1 ||
  fail_with_log "resuming the killed run failed" "$work/resume.log"

/usr/bin/python3 "$src/tests/tensorboard/read_events.py" "$src/src/run/tensorboard_event.proto" "$work" \
  "${run_dir%/}" "${resumed_dir%/}"
status=$?
# A pass leaves no runs behind (the suite's disk use); a failure keeps them to look at.
((status != 0)) || [[ -n ${RUNNER_KEEP_TEST_TMP:-} ]] || rm -rf "$work"
exit $status
