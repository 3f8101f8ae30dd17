#!/usr/bin/env bash
# Data parallelism under a real Slurm: as root, starts a one-node cluster on
# this machine (munged, slurmctld, slurmd; 2 CPUs, loopback only, every file
# under a temporary folder), then
#   1. `srun -n 2 runner run RECIPE` and scripts/slurm/train.sbatch (docs/distributed-and-slurm.md's
#      script, 1 node x 2 tasks) give the same metrics as `runner launch
#      --nproc-per-node 2` (the same two-process computation: equal bits);
#   2. `scontrol requeue` of the running sbatch job: the requeued job resumes
#      (--resume auto) and ends with final weights equal, byte for byte, to the
#      uninterrupted run's.
# Stops every daemon it started (by pid) and removes its files.
# Skips (exit 77) when not root or the packages are missing (scripts/setup.sh --with-slurm).
# usage: slurm_cluster.sh SOURCE_ROOT BUILD_ROOT
set -uo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
work=$build/test-tmp/slurm
runner=$build/runner
recipe=$src/recipes/smoke/mrpc_smoke.toml
passed=0 failed=0 assertions=0

check() {  # NAME COMMAND...: one assertion
  assertions=$((assertions + 1))
  if "${@:2}"; then return 0; fi
  echo "  FAILED: $1" >&2
  case_failed=1
}
begin() { case_name=$1 case_failed=0; echo "== $case_name"; }
end() {
  if ((case_failed)); then failed=$((failed + 1)); echo "$case_name: FAILED"; else passed=$((passed + 1)); echo "$case_name: ok"; fi
}
summary_line() {
  if ((failed)); then echo "test cases: $((passed + failed)) | $passed passed | $failed failed"
  else echo "All tests passed ($assertions assertions in $passed test cases)"; fi
}

begin "docs/distributed-and-slurm.md shows scripts/slurm/train.sbatch as it is"
# The page's block after its marker line, up to the closing fence.
shown=$(sed -n '/^<!-- scripts\/slurm\/train.sbatch/,/^```$/p' "$src/docs/distributed-and-slurm.md" | sed '1,2d;$d')
check "docs block == scripts/slurm/train.sbatch" test "$shown" = "$(cat "$src/scripts/slurm/train.sbatch")"
end

skip() {
  echo "slurm: SKIPPED the cluster: $*"
  summary_line
  ((failed == 0)) && exit 77
  exit 1
}
[[ $(id -u) -eq 0 ]] || skip "the Slurm test starts daemons and needs root"
for c in munged mungekey slurmctld slurmd sbatch srun scontrol squeue sinfo jq; do
  command -v "$c" >/dev/null || skip "'$c' is missing: install slurm-wlm, munge and jq (scripts/setup.sh --with-slurm)"
done

# --- the cluster -------------------------------------------------------------
# A port nobody listens on (bash's /dev/tcp: a refused connection means free).
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  echo 29500
}

state=$(mktemp -d /tmp/runner-slurm.XXXXXX)
chmod 711 "$state"  # munged wants every directory above its socket searchable
mkdir -p "$state"/{munge,ctld,spool,log}
daemon_pids=()
cleanup() {
  # Jobs first (a failed check may leave one running), so that no slurmstepd outlives slurmd.
  scancel --full --quiet --user=root 2>/dev/null
  for _ in $(seq 1 80); do [[ -z $(squeue -h 2>/dev/null) ]] && break; sleep 0.5; done
  local pid
  for pid in "${daemon_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${daemon_pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$state"
}
trap cleanup EXIT
# Our own slurm.conf, never the system's; no variables of an enclosing job.
unset $(compgen -e | grep '^SLURM_')
export SLURM_CONF=$state/slurm.conf

# The pid a daemon wrote, once it has written it.
pid_from() {
  for _ in $(seq 1 100); do
    [[ -s $1 ]] && { cat "$1"; return 0; }
    sleep 0.1
  done
  return 1
}
start_failed() {
  echo "slurm: $1 did not start; its log:" >&2
  tail -n 20 "$2" >&2
  echo "test cases: 1 | 0 passed | 1 failed"
  exit 1
}

host=$(hostname -s)
cat >"$SLURM_CONF" <<EOF
ClusterName=runnertest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$state/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=30
JobRequeue=1
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=runner Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

mungekey --create --keyfile="$state/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$state/munge/munge.key"
munged --socket="$state/munge/munge.socket" --key-file="$state/munge/munge.key" \
  --pid-file="$state/munge/munged.pid" --seed-file="$state/munge/munged.seed" \
  --log-file="$state/log/munged.log" 2>>"$state/log/munged.log"
pid=$(pid_from "$state/munge/munged.pid") || start_failed munged "$state/log/munged.log"
daemon_pids+=("$pid")
slurmctld -i 2>>"$state/log/slurmctld.log"
pid=$(pid_from "$state/slurmctld.pid") || start_failed slurmctld "$state/log/slurmctld.log"
daemon_pids+=("$pid")
slurmd 2>>"$state/log/slurmd.log"
pid=$(pid_from "$state/slurmd.pid") || start_failed slurmd "$state/log/slurmd.log"
daemon_pids+=("$pid")

t0=$(date +%s)
until [[ $(sinfo -h -n "$host" -o %T 2>/dev/null) == idle ]]; do
  (($(date +%s) - t0 < 60)) || start_failed "the node (not idle after 60 s)" "$state/log/slurmd.log"
  sleep 0.5
done
echo "slurm: cluster up in $(($(date +%s) - t0)) s (node $host idle)"

# --- the runs ----------------------------------------------------------------
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
export PATH=$build:$PATH  # the script runs `runner` from PATH
# The workers meet on loopback: the node's name when it resolves there, else 127.0.0.1.
getent hosts "$host" | grep -qE '^127\.' || export MASTER_ADDR=127.0.0.1

# 128 MRPC pairs, 2 epochs of 8 steps (8 per rank per step), a loss every
# step, a checkpoint every 4; one thread per worker (one CPU per task).
sets() {
  echo --set run.output_dir="$work/$1" --set run.threads=1 --set data.max_train_examples=128 \
    --set data.max_eval_examples=64 --set data.eval_batch_size=32 --set data.train_batch_size=8 \
    --set train.epochs=2 --set train.log_every=1 --set train.checkpoint_every=4
}
run_of() { ls -d "$work/$1"/mrpc_smoke/*/ 2>/dev/null | head -n1 | sed 's:/$::'; }
# The train and eval events without their timings: what must repeat bit for bit.
reproducible() {
  jq -c 'select(.event == "train" or .event == "eval") | del(.samples_per_s, .tokens_per_s, .elapsed_s, .wall_time, .time, .utc)' \
    "$1/metrics.jsonl"
}
status_of() { jq -r .status "$1/summary.json" 2>/dev/null; }
job_field() { scontrol show job "$1" 2>/dev/null | grep -oE "(^| )$2=[^ ]*" | head -n1 | cut -d= -f2; }
# Waits (up to $2 seconds) for job $1 to leave the queue; prints its final state.
wait_job() {
  local t=$SECONDS st
  while ((SECONDS - t < $2)); do
    st=$(job_field "$1" JobState)
    case $st in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) echo "$st"; return;; esac
    sleep 1
  done
  echo "still ${st:-unknown} after $2 s"
}

begin "runner launch, srun -n 2 and the documented sbatch script train alike"
"$runner" launch --nproc-per-node 2 --master-port "$(free_port)" "$recipe" $(sets launch) >launch.log 2>&1
check "runner launch succeeds (launch.log)" test $? -eq 0
MASTER_PORT=$(free_port) srun -n 2 --cpus-per-task=1 runner run "$recipe" $(sets srun) \
  --set topology.processes_per_node=2 >srun.log 2>&1
check "srun -n 2 succeeds (srun.log)" test $? -eq 0
check "the workers read Slurm's variables" grep -q "(slurm)" srun.log
MASTER_PORT=$(free_port) sbatch --wait --quiet --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 \
  --output="$work/sbatch.out" "$src/scripts/slurm/train.sbatch" "$recipe" $(sets sbatch) >sbatch.log 2>&1
check "the sbatch job succeeds (sbatch.out)" test $? -eq 0
launch=$(run_of launch) via_srun=$(run_of srun) via_sbatch=$(run_of sbatch)
for run in "$launch" "$via_srun" "$via_sbatch"; do
  check "$run completed" test "$(status_of "$run")" = completed
done
check "16 train events" test "$(reproducible "$launch" | grep -c '"event":"train"')" -eq 16
check "srun's events equal runner launch's" test "$(reproducible "$via_srun")" = "$(reproducible "$launch")"
check "sbatch's events equal runner launch's" test "$(reproducible "$via_sbatch")" = "$(reproducible "$launch")"
check "sbatch's final metrics equal runner launch's" \
  test "$(jq -c .final "$via_sbatch/summary.json")" = "$(jq -c .final "$launch/summary.json")"
check "the sbatch run records 1 node x 2 processes" \
  test "$(jq -c '[.topology.nodes, .topology.processes_per_node]' "$via_sbatch/recipe.resolved.json")" = "[1,2]"
check "equal final weights (srun)" cmp -s "$via_srun/final/model.safetensors" "$launch/final/model.safetensors"
check "equal final weights (sbatch)" cmp -s "$via_sbatch/final/model.safetensors" "$launch/final/model.safetensors"
end

begin "scontrol requeue of the running job: the requeued job resumes to the same final weights"
job=$(MASTER_PORT=$(free_port) sbatch --parsable --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 \
  --output="$work/requeue.out" "$src/scripts/slurm/train.sbatch" "$recipe" $(sets requeue))
check "sbatch accepts the job" test -n "$job"
# Requeue once the run is past its checkpoint of step 4 and before its end (16).
t=$SECONDS
train_events() { local n; n=$(grep -c '"event":"train"' "$1/metrics.jsonl" 2>/dev/null); echo "${n:-0}"; }
until run=$(run_of requeue) && [[ -n $run ]] && (($(train_events "$run") >= 6)); do
  ((SECONDS - t < 300)) || break
  sleep 0.2
done
steps_before=$(train_events "$run")
check "the run is under way before its end (step $steps_before)" test "$steps_before" -ge 6 -a "$steps_before" -lt 16
scontrol requeue "$job"
check "scontrol requeue accepts the job" test $? -eq 0
# A requeued job waits ~2 minutes (its begin time) before it may start again; start it now.
t=$SECONDS
until [[ $(job_field "$job" JobState) == RUNNING ]] || ((SECONDS - t > 120)); do
  [[ $(job_field "$job" JobState) == PENDING ]] && scontrol update JobId="$job" StartTime=now 2>/dev/null
  sleep 0.5
done
final_state=$(wait_job "$job" 600)
check "the requeued job completes (was $final_state; requeue.out)" test "$final_state" = COMPLETED
check "Slurm restarted it once" test "$(job_field "$job" Restarts)" = 1
check "one run directory" test "$(ls "$work/requeue/mrpc_smoke" | wc -l)" -eq 1
check "the run completed" test "$(status_of "$run")" = completed
check "it resumed from a checkpoint" test "$(jq -r '.resumed_from // ""' "$run/summary.json" | grep -c step-)" -eq 1
check "the requeue stopped the workers with SIGTERM: they checkpointed and ended interrupted" \
  grep -q "end interrupted by SIGTERM" "$work/requeue.out"
check "the requeued job's final weights equal the uninterrupted run's" \
  cmp -s "$run/final/model.safetensors" "$launch/final/model.safetensors"
check "its events equal the uninterrupted run's" test "$(reproducible "$run")" = "$(reproducible "$launch")"
end

# NAME SET_LINES TAIL: a sweep file of 4 points (2 learning rates x 2 seeds) of
# the smoke recipe, 128 MRPC pairs in batches of 8, a checkpoint every 4 steps.
sweep_file() {
  cat >"$work/$1.toml" <<EOF
name = "$1"
base = "$recipe"
metric = "eval.accuracy"
output_dir = "$work/sweeps"
[set]
"data.max_train_examples" = 128
"data.max_eval_examples" = 64
"data.eval_batch_size" = 32
"data.train_batch_size" = 8
"train.checkpoint_every" = 4
"run.loggers" = ["jsonl"]
$2
[grid]
"optimizer.lr" = [1e-4, 5e-4]
"run.seed" = [1, 2]
$3
EOF
}
# What a sweep's results are, in rank order, without timings and attempts.
results() {
  jq -S -c '[.points[] | {point, status, best, final, final_metrics, overrides}]' "$work/sweeps/$1/sweep_summary.json"
}

begin "runner sweep --slurm: each point a job; a cancelled one resumes when the sweep starts again"
sweep_file sw_slurm '"train.epochs" = 2' ""
sweep_file sw_local '"train.epochs" = 2' ""
# 100 ms a step, so that the cancel lands between a checkpoint and the run's end (32 steps).
RUNNER_TEST_STEP_PAUSE_MS=100 "$runner" sweep "$work/sw_slurm.toml" --slurm --cpus-per-task=1 >sweep1.log 2>&1 &
driver=$!
ledger=$work/sweeps/sw_slurm/sweep_ledger.json
t=$SECONDS point="" cancelled=""
until [[ -n $cancelled ]] || ((SECONDS - t > 300)); do
  checkpoint=$(find "$work/sweeps/sw_slurm" -path '*/checkpoints/step-*' -name 'step-*' 2>/dev/null | head -n1)
  if [[ -n $checkpoint ]]; then
    point=$(basename "$(dirname "$(dirname "$(dirname "$checkpoint")")")")
    cancelled=$(jq -r --arg p "$point" '.points[$p].slurm_job // empty' "$ledger")
  fi
  sleep 0.2
done
check "point $point's job ($cancelled) was found running" test -n "$cancelled"
scancel "$cancelled"
wait "$driver"
check "the sweep with a cancelled point exits 1 (sweep1.log)" test $? -eq 1
check "every point was submitted as its own job" test "$(grep -c '^\[sweep\] started' sweep1.log)" -eq 4
check "the cancelled point is interrupted" test "$(jq -r --arg p "$point" '.points[$p].state' "$ledger")" = interrupted
check "the other 3 completed" test "$(jq '[.points[] | select(.state == "completed")] | length' "$ledger")" -eq 3
"$runner" sweep "$work/sw_slurm.toml" --slurm --cpus-per-task=1 >sweep2.log 2>&1
check "the sweep started again completes (sweep2.log)" test $? -eq 0
check "only the cancelled point ran again" test "$(grep -c '^\[sweep\] started' sweep2.log)" -eq 1
run=$(ls -d "$work/sweeps/sw_slurm/$point"/*/ | sed 's:/$::')
check "the point kept one run directory" test "$(wc -l <<<"$run")" -eq 1
check "the point resumed from a checkpoint" test "$(jq -r '.resumed_from // ""' "$run/summary.json" | grep -c step-)" -eq 1
"$runner" sweep "$work/sw_local.toml" --jobs 2 >local.log 2>&1
check "the same sweep run here completes (local.log)" test $? -eq 0
check "both rank the points alike with the same metrics" test "$(results sw_slurm)" = "$(results sw_local)"
check "the resumed point's weights equal the uninterrupted one's" \
  cmp -s "$run/final/model.safetensors" "$(ls -d "$work/sweeps/sw_local/$point"/*/)final/model.safetensors"
end

begin "runner sweep --slurm with [asha]: the promotions are new jobs; the search equals the one run here"
asha='[asha]
min_budget = 4
max_budget = 16
eta = 2'
sweep_file sw_asha_slurm '"train.eval_every" = 4' "$asha"
sweep_file sw_asha_local '"train.eval_every" = 4' "$asha"
# One point at a time on both sides, with 2 threads each: the same promotions in the same order.
"$runner" sweep "$work/sw_asha_slurm.toml" --jobs 1 --slurm --cpus-per-task=2 >asha_slurm.log 2>&1
check "the search under Slurm completes (asha_slurm.log)" test $? -eq 0
"$runner" sweep "$work/sw_asha_local.toml" --jobs 1 >asha_local.log 2>&1
check "the search run here completes (asha_local.log)" test $? -eq 0
launches=$(jq '[.points[].attempts] | add' "$work/sweeps/sw_asha_slurm/sweep_ledger.json")
jobs=$(scontrol -o show job | grep -c 'JobName=sw_asha_slurm:')
check "each start and promotion was a job of its own ($jobs jobs, $launches launches)" test "$jobs" -eq "$launches"
check "some point was promoted" grep -q '^\[asha\] promoted' asha_slurm.log
check "the same rungs, promotions and metrics" test "$(results sw_asha_slurm)" = "$(results sw_asha_local)"
check "the same rung metrics" test "$(jq -S -c '[.points[] | .rung_metrics]' "$work/sweeps/sw_asha_slurm/sweep_ledger.json")" = \
  "$(jq -S -c '[.points[] | .rung_metrics]' "$work/sweeps/sw_asha_local/sweep_ledger.json")"
end

echo "slurm: the test took $(($(date +%s) - t0)) s after the cluster started"
summary_line
((failed == 0))
