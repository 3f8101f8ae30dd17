#!/usr/bin/env bash
# Issue 15's twelve hostile inputs, each run as a user runs it: exit code,
# wall time and peak memory of the refusal, beside `runner --version` measured
# in the same script (the process start, LibTorch's loading included, is most
# of every refusal). Each case runs in a fresh folder; the last column says
# whether the folder holds anything beyond the inputs afterwards.
#
#   bench/refusal_times.sh [BUILD_DIR=build]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
runner=$build/runner
shared=$(realpath "${RUNNER_SHARED:-../shared}")
work=$(mktemp -d)
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
export HF_HUB_OFFLINE=1

# case NAME ARGS...: runs `runner ARGS` in $work/NAME (prepared beforehand) and prints a row.
measure() {
  local name=$1; shift
  local dir=$work/$name
  mkdir -p "$dir"
  local before after rc
  before=$(cd "$dir" && find . | sort | md5sum)
  set +e
  (cd "$dir" && /usr/bin/time -f "%e %M" -o "$work/$name.time" "$runner" "$@" >"$work/$name.out" 2>&1)
  rc=$?
  set -e
  after=$(cd "$dir" && find . | sort | md5sum)
  read -r secs kib < <(tail -n 1 "$work/$name.time")  # after "Command exited with ..."
  printf '| %-34s | %4d | %6.2f | %6.0f | %-4s | %s\n' "$name" "$rc" "$secs" "$((kib / 1024))" \
    "$([[ $before == "$after" ]] && echo none || echo LEFT)" \
    "$(grep -m1 -oE 'error: .{0,70}' "$work/$name.out" || echo '(no error line)')"
}

prepare() { mkdir -p "$work/$1"; cat >"$work/$1/$2"; }

recipe_base="[data]
dataset = \"glue/mrpc\"
dir = \"$shared/data/glue/MRPC\"
[tokenizer]
path = \"$shared/models/bert-base-uncased\"
[model]
preset = \"bert-tiny\""

{
  printf 'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n'
  for k in 1 2 3 4 5 6 7 8 9; do
    printf 'a%d: &a%d [' "$k" "$k"
    for j in 1 2 3 4 5 6 7 8 9 10; do printf '*a%d%s' $((k - 1)) "$([[ $j -lt 10 ]] && echo ', ')"; done
    printf ']\n'
  done
  printf 'run: {loggers: *a9}\n'
} | prepare 01-yaml-alias-bomb bomb.yaml
python3 -c 'print("{\"text_a\": \"x\", \"z\": " + "[" * 100000 + "]" * 100000 + "}")' |
  prepare 02-jsonl-nested-100000 deep.jsonl
printf '[run]\nthreads = 1000000\n' | prepare 03-threads-1000000 r.toml
printf '[train]\nepochs = 1e300\n' | prepare 04-epochs-1e300 r.toml
printf '%s\n[train]\nmax_steps = 1\n' "$recipe_base" | prepare 04-empty-dev-split r.toml
mkdir -p "$work/04-empty-dev-split/data"
head -n 9 "$shared/data/glue/MRPC/train.tsv" >"$work/04-empty-dev-split/data/train.tsv"
head -n 1 "$shared/data/glue/MRPC/dev.tsv" >"$work/04-empty-dev-split/data/dev.tsv"
sed -i "s|^dir = .*|dir = \"$work/04-empty-dev-split/data\"|" "$work/04-empty-dev-split/r.toml"
printf '[optimizer]\nlr = inf\n' | prepare 05-lr-inf r.toml
printf '[optimizer]\nbetas = []\n' | prepare 06-betas-empty r.toml
printf '[model]\npreset = "bert-tiny"\nhidden_size = 100\nnum_attention_heads = 3\n' | prepare 06-heads-do-not-divide r.toml
printf '[model]\npreset = "bert-tiny"\nnum_hidden_layers = 100000000\n' | prepare 07-layers-1e8 r.toml
printf '[data]\ndataset = "tsv"\ndir = "data"\n[data.columns]\ntext_a = "99999999999999999999"\n%s\n' \
  "$(sed -n '/^\[tokenizer\]/,$p' <<<"$recipe_base")" | prepare 08-column-past-int64 r.toml
mkdir -p "$work/08-column-past-int64/data"
printf 'text_a\tlabel\na good film\t1\na bad film\t0\n' | tee "$work/08-column-past-int64/data/train.tsv" \
  >"$work/08-column-past-int64/data/dev.tsv"
printf 'base = 5\nmetric = "eval.f1"\n' | prepare 08-sweep-base-5 s.toml
printf '[run]\nname = "../../../../elsewhere/x"\n' | prepare 09-name-escapes r.toml
printf 'run:\n  seed: 1\n---\nrun:\n  seed: -5\n' | prepare 10-second-yaml-document r.yaml
printf '[run]\nname = "x"\n' | prepare 11-sweep-10e12-points base.toml
{
  printf 'base = "base.toml"\nmetric = "eval.f1"\n[grid]\n'
  for key in optimizer.lr optimizer.weight_decay optimizer.eps train.epochs train.max_grad_norm \
    train.warmup_ratio run.seed data.train_batch_size data.max_length train.grad_accum \
    train.log_every train.eval_every; do
    printf '"%s" = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n' "$key"
  done
} | prepare 11-sweep-10e12-points s.toml
: | prepare 12-predict-batch-size-0 in.jsonl
: | prepare 12-tokenize-input-dir empty
: | prepare 12-compare-dev-zero empty
printf '[run]\nname = "x"\n' | prepare 12-sweep-metric-f9 base.toml
printf 'base = "base.toml"\nmetric = "eval.f9"\n[grid]\n"optimizer.lr" = [1e-4, 2e-4]\n' |
  prepare 12-sweep-metric-f9 s.toml

"$runner" --version >/dev/null  # warm the page cache for both sides
printf '| %-34s | exit | %6s | %6s | left | message\n' case seconds MiB
printf '|%s|\n' '---|---|---|---|---|---'
for round in 1 2; do
  measure "00-version-round$round" --version
done
measure 01-yaml-alias-bomb validate bomb.yaml
measure 02-jsonl-nested-100000 tokenize --tokenizer "$shared/models/bert-base-uncased" --input deep.jsonl
measure 03-threads-1000000 validate r.toml
measure 04-epochs-1e300 validate r.toml
measure 04-empty-dev-split run r.toml --set run.output_dir=runs
measure 05-lr-inf validate r.toml
measure 06-betas-empty validate r.toml
measure 06-heads-do-not-divide validate r.toml
measure 07-layers-1e8 validate r.toml
measure 08-column-past-int64 run r.toml --set run.output_dir=runs --set train.max_steps=1
measure 08-sweep-base-5 sweep s.toml --dry-run
measure 09-name-escapes validate r.toml
measure 10-second-yaml-document validate r.yaml
measure 11-sweep-10e12-points sweep s.toml --dry-run
measure 12-predict-batch-size-0 predict --model "$shared/golden/tiny_bert" \
  --tokenizer "$shared/models/bert-base-uncased" --input in.jsonl --batch-size 0
measure 12-tokenize-input-dir tokenize --tokenizer "$shared/models/bert-base-uncased" --input .
measure 12-compare-dev-zero compare /dev/zero .
measure 12-sweep-metric-f9 sweep s.toml --dry-run
