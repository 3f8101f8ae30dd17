#!/usr/bin/env bash
# Trains the smoke recipe with the tensorboard logger and reads its event files
# back with read_events.py (python3-protobuf, installed here when missing and
# this runs as root).
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

if ! /usr/bin/python3 -c "import google.protobuf" 2>/dev/null || ! command -v protoc >/dev/null; then
  [[ $(id -u) -eq 0 ]] || fail "python3-protobuf and protobuf-compiler are needed (apt-get install them)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-protobuf \
    protobuf-compiler >"$work/apt.log" 2>&1 || fail "apt-get install python3-protobuf failed; see $work/apt.log"
fi

"$build/runner" run "$src/recipes/smoke/mrpc_smoke.toml" --set "run.output_dir=$work/runs" \
  --set run.loggers=jsonl,tensorboard --set train.log_every=2 >"$work/run.log" 2>&1 ||
  fail "the smoke run failed; see $work/run.log"
run_dir=$(ls -d "$work"/runs/mrpc_smoke/*/ | head -n1)
/usr/bin/python3 "$src/tests/tensorboard/read_events.py" "${run_dir%/}" "$src/src/run/tensorboard_event.proto" "$work"
