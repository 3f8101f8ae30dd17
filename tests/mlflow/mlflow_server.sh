#!/usr/bin/env bash
# On demand (`bash scripts/test.sh mlflow-server`): a real MLflow tracking server
# from PyPI (pinned below, in BUILD_ROOT/mlflow-venv, pip-installed when missing)
# on 127.0.0.1, and the smoke recipe trained with the mlflow logger. Read back
# through the server's REST API with curl and jq:
#   1. a whole run: every train/eval number of metrics.jsonl at the same step with
#      the same value, the resolved recipe as params, the runner's tags, status
#      FINISHED and the final model as artifacts;
#   2. the server stopped mid-run and started again: the run goes on, says once
#      that the server cannot be reached, and the metrics logged meanwhile arrive;
#   3. the server stopped mid-run for good: the run completes (exit 0), says once
#      that it cannot be reached, and metrics.jsonl keeps every event.
# usage: mlflow_server.sh SOURCE_ROOT BUILD_ROOT
set -uo pipefail
src=$1 build=$2
work=$build/test-tmp/mlflow-server
rm -rf "$work" && mkdir -p "$work"
runner=$build/runner
venv=${RUNNER_MLFLOW_VENV:-$build/mlflow-venv}
MLFLOW_PIN=mlflow==3.17.2
passed=0 failed=0 server_pid=""

finish() {
  [[ -z $server_pid ]] || stop_server
  echo "test cases: $((passed + failed)) | $passed passed | $failed failed"
  ((failed == 0))
  exit
}
fail_setup() { echo "mlflow_server: $*" >&2; ((failed++)); finish; }
check() {  # NAME COMMAND...: one test case
  local name=$1; shift
  if "$@"; then ((passed++)); echo "ok: $name"; else ((failed++)); echo "FAILED: $name" >&2; fi
}

if ! "$venv/bin/mlflow" --version >/dev/null 2>&1; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q "$MLFLOW_PIN" >"$work/pip.log" 2>&1 ||
    fail_setup "pip install $MLFLOW_PIN failed (it needs PyPI); see $work/pip.log"
fi

# A free loopback port: the kernel's choice for a socket bound to port 0.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
uri=http://127.0.0.1:$port
api=$uri/api/2.0/mlflow

start_server() {
  setsid "$venv/bin/mlflow" server --host 127.0.0.1 --port "$port" --workers 1 \
    --backend-store-uri "sqlite:///$work/mlflow.db" --artifacts-destination "$work/artifacts" \
    >>"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 120); do
    curl -sf "$uri/health" >/dev/null && return 0
    sleep 0.5
  done
  fail_setup "mlflow server did not answer on $uri within 60 s; see $work/server.log"
}
stop_server() {  # mlflow server runs its workers as children: stop its whole session
  kill -TERM -- "-$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null
  server_pid=""
}

# NAME [--set ...]: trains the smoke recipe with the mlflow logger into $work/NAME.
train() {
  local name=$1; shift
  MLFLOW_TRACKING_URI=$uri MLFLOW_EXPERIMENT_NAME=runner-test "$runner" "$src/recipes/smoke/mrpc_smoke.toml" \
    --set "run.output_dir=$work/$name" --set 'run.loggers=["jsonl","mlflow"]' --set run.threads=1 "$@" >"$work/$name.log" 2>&1
}
run_dir() { dirname "$(ls "$work/$1"/*/*/summary.json)"; }
run_id() { jq -r .run_id "$(run_dir "$1")/mlflow.json"; }

# The numbers of metrics.jsonl's train/eval events as MLflow metrics, sorted: key step value.
expected_metrics() {
  jq -r 'select(.event == "train" or .event == "eval") | . as $e | to_entries[]
    | select(.value | type == "number")
    | select(.key | IN("step", "total_steps", "epoch", "examples", "effective_batch", "wall_time", "elapsed_s") | not)
    | "\($e.event)/\(.key) \($e.step) \(.value)"' "$1/metrics.jsonl" | sort
}
# The same read back from the server (every key metrics.jsonl has).
served_metrics() {
  local id=$1 dir=$2 key
  for key in $(expected_metrics "$dir" | cut -d' ' -f1 | sort -u); do
    curl -sf "$api/metrics/get-history?run_id=$id&metric_key=$key" |
      jq -r '.metrics[]? | "\(.key) \(.step) \(.value)"'
  done | sort
}
same_metrics() { diff <(expected_metrics "$2") <(served_metrics "$1" "$2") >"$work/metrics.diff"; }
run_field() { curl -sf "$api/runs/get?run_id=$1" | jq -r "$2"; }
said_once() { [[ $(grep -c "cannot be reached" "$1") -eq 1 ]]; }
ended() { [[ $(jq -r .status "$1/summary.json") == completed ]]; }
# Waits (up to 60 s) until the server holds a train/loss point of run NAME.
wait_first_metric() {
  for _ in $(seq 1 120); do
    ls "$work/$1"/*/*/mlflow.json >/dev/null 2>&1 &&
      curl -sf "$api/metrics/get-history?run_id=$(run_id "$1")&metric_key=train/loss" |
      jq -e '.metrics | length > 0' >/dev/null && return 0
    sleep 0.5
  done
  return 1
}

start_server

# 1. A whole run.
train whole || fail_setup "the smoke run failed; see $work/whole.log"
dir=$(run_dir whole) id=$(run_id whole)
check "every train/eval number arrived at its step with its value" same_metrics "$id" "$dir"
check "the MLflow run is FINISHED" [ "$(run_field "$id" .run.info.status)" == FINISHED ]
check "the experiment is \$MLFLOW_EXPERIMENT_NAME" [ "$(curl -sf "$api/experiments/get?experiment_id=$(run_field "$id" .run.info.experiment_id)" | jq -r .experiment.name)" == runner-test ]
check "the resolved recipe is in the params" [ "$(run_field "$id" '.run.data.params[] | select(.key == "optimizer.lr") | .value')" == "$(jq -r .optimizer.lr "$dir/recipe.resolved.json")" ]
check "the runner's commit is tagged" [ "$(run_field "$id" '.run.data.tags[] | select(.key == "mlflow.source.git.commit") | .value')" == "$(jq -r .git_commit "$dir/env.json")" ]
check "the final model is an artifact" [ "$(curl -sf "$api/artifacts/list?run_id=$id&path=final" | jq '[.files[].path] | index("final/model.safetensors") != null')" == true ]

# 2. The server stopped mid-run and started again (160 steps, 150 ms each at least).
RUNNER_TEST_STEP_PAUSE_MS=150 train outage --set train.epochs=10 --set train.log_every=1 --set train.checkpoint_every=0 &
trainer=$!
wait_first_metric outage || fail_setup "no metric of the outage run reached the server; see $work/outage.log"
stop_server
sleep 3
start_server
wait "$trainer"
rc=$?
dir=$(run_dir outage) id=$(run_id outage)
check "the run through an outage ends well" [ "$rc" -eq 0 ]
check "the outage is said once" said_once "$work/outage.log"
check "the metrics logged during the outage arrived" same_metrics "$id" "$dir"
check "the run after an outage is FINISHED" [ "$(run_field "$id" .run.info.status)" == FINISHED ]

# 3. The server stopped mid-run for good.
RUNNER_TEST_STEP_PAUSE_MS=50 train gone --set train.epochs=10 --set train.log_every=1 --set train.checkpoint_every=0 &
trainer=$!
wait_first_metric gone || fail_setup "no metric of the last run reached the server; see $work/gone.log"
stop_server
wait "$trainer"
rc=$?
dir=$(run_dir gone)
check "a run whose server is gone completes" [ "$rc" -eq 0 ]
check "a run whose server is gone is recorded completed" ended "$dir"
check "the gone server is said once" said_once "$work/gone.log"
check "metrics.jsonl keeps every train event" [ "$(grep -c '"event":"train"' "$dir/metrics.jsonl")" -eq 160 ]
finish
