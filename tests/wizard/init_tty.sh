#!/usr/bin/env bash
# `runner init` end to end: refused without a terminal, --defaults, an existing
# file kept, and the wizard answered through a pseudo-terminal (tmux), wrong
# answer included; the recipe it writes validates and trains (smoke-sized).
# usage: init_tty.sh SOURCE_ROOT BUILD_ROOT
set -uo pipefail
src=$1 build=$2
work=$build/test-tmp/init-tty
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
runner=$build/runner
passed=0 failed=0 assertions=0

check() {  # NAME COMMAND...: one assertion
  assertions=$((assertions + 1))
  if "${@:2}"; then return 0; fi
  echo "  FAILED: $1" >&2
  case_failed=1
}
begin() { case_name=$1 case_failed=0; }
end() {
  if ((case_failed)); then failed=$((failed + 1)); echo "$case_name: FAILED"; else passed=$((passed + 1)); echo "$case_name: ok"; fi
}

if ! command -v tmux >/dev/null; then
  [[ $(id -u) -eq 0 ]] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null 2>&1
fi

begin "without a terminal runner init refuses and writes nothing"
"$runner" init notty.toml </dev/null >out.txt 2>&1
code=$?
check "exit code 2 (was $code)" test $code -eq 2
check "names the fix" grep -q "runner init --defaults notty.toml" out.txt
check "nothing written" test ! -e notty.toml
end

begin "--defaults writes a recipe that validates, and keeps an existing file"
"$runner" init --defaults defaults.toml </dev/null >out.txt 2>&1
check "exit 0" test $? -eq 0
check "validates" "$runner" validate defaults.toml
check "commented" grep -q "^# Written by \`runner init\`" defaults.toml
echo "mine" >kept.toml
"$runner" init --defaults kept.toml </dev/null >out.txt 2>&1
check "exit 2 for an existing file" test $? -eq 2
check "the file is kept" test "$(cat kept.toml)" = mine
end

begin "the wizard answered through a pseudo-terminal writes what was chosen"
sock=$work/tmux.sock
tmux -S "$sock" new-session -d -x 150 -y 60 -s init \
  "cd '$work' && '$runner' init wizard.toml; echo \"exit=\$?\" >'$work/wizard.exit'; sleep 60"
screen() { tmux -S "$sock" capture-pane -p -t init -S -300; }
wait_for() {  # TEXT [COUNT]: until TEXT shows COUNT times on the terminal
  for _ in $(seq 1 150); do
    (($(screen | grep -cF -- "$1") >= ${2:-1})) && return 0
    sleep 0.1
  done
  echo "  no \"$1\" on the terminal:" >&2
  screen >&2
  return 1
}
answer() {  # TEXT then Enter; "" is Enter alone (take the default)
  [[ -z $1 ]] || tmux -S "$sock" send-keys -t init -l -- "$1"
  tmux -S "$sock" send-keys -t init Enter
}
check "asks the task" wait_for "Task:"
answer 99
check "explains a wrong answer" wait_for "is not one of the choices"
answer glue/mrpc
check "asks the model" wait_for "Model:"
check "offers presets of every family" wait_for "electra-small (electra)"
answer "bert-tiny (bert)"
check "asks the precision" wait_for "Precision"
answer ""
check "asks the batch size" wait_for "Training batch size"
answer 0
check "explains a bad number" wait_for "is not a whole number"
answer 16
check "asks the epochs" wait_for "Epochs"
answer 1
check "asks the processes" wait_for "Processes on this machine"
answer 1
for _ in $(seq 1 100); do [[ -e wizard.exit ]] && break; sleep 0.1; done
check "the wizard exits 0" grep -q "exit=0" wizard.exit
check "says it wrote a valid recipe" wait_for "wrote wizard.toml (valid)"
tmux -S "$sock" kill-server 2>/dev/null
check "the preset chosen" grep -q '^preset = "bert-tiny"' wizard.toml
check "the batch size chosen" grep -q '^train_batch_size = 16' wizard.toml
check "the epochs chosen" grep -q '^epochs = 1$' wizard.toml
check "the precision default" grep -q '^precision = "fp32"' wizard.toml
end

begin "the recipe the wizard wrote validates and trains (smoke-sized)"
check "validates" "$runner" validate wizard.toml
"$runner" run wizard.toml --set "run.output_dir=$work/runs" --set data.max_train_examples=64 \
  --set data.max_eval_examples=64 --set data.max_length=64 --set run.loggers=jsonl >run.log 2>&1
code=$?
check "runs to the end (exit $code, see $work/run.log)" test $code -eq 0
check "a completed run of the recipe's name" grep -Eq '"status": *"completed"' runs/mrpc_bert_tiny/*/summary.json
end

if ((failed)); then
  echo "test cases: $((passed + failed)) | $passed passed | $failed failed"
  exit 1
fi
echo "All tests passed ($assertions assertions in $passed test cases)"
