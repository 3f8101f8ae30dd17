#!/usr/bin/env bash
# On demand (`bash scripts/test.sh browser`): trains the smoke recipe and a
# 4-point sweep, writes their reports with `runner report`, renders each in
# headless Chromium in the light and the dark colour scheme, and checks the
# screenshots and the parsed SVG with check_render.py. Installs Debian's
# chromium when it is missing and this runs as root.
# usage: report_browser.sh SOURCE_ROOT BUILD_ROOT [SCREENSHOT_DIR]
set -uo pipefail
src=$1 build=$2 shots=${3:-}
work=$build/test-tmp/report-browser
rm -rf "$work" && mkdir -p "$work"
runner=$build/runner

fail() {  # a setup step failed: one failed case, in the summary scripts/test.sh reads
  echo "report_browser: $*" >&2
  echo "test cases: 1 | 0 passed | 1 failed"
  exit 1
}

if ! command -v chromium >/dev/null; then
  [[ $(id -u) -eq 0 ]] || fail "chromium is not installed (apt-get install chromium)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >"$work/apt.log" 2>&1 ||
    fail "apt-get install chromium failed; see $work/apt.log"
fi

"$runner" run "$src/recipes/smoke/mrpc_smoke.toml" --set "run.output_dir=$work/runs" \
  --set 'run.loggers=["jsonl"]' >"$work/smoke.log" 2>&1 || fail "the smoke run failed; see $work/smoke.log"
run_dir=$(ls -d "$work"/runs/mrpc_smoke/*/ | head -n1)
run_dir=${run_dir%/}

cat >"$work/sweep.toml" <<TOML
name = "tiny4"
base = "$src/recipes/smoke/mrpc_smoke.toml"
metric = "eval.loss"
direction = "lower"
output_dir = "$work/runs"
[set]
"train.epochs" = 1
"data.max_train_examples" = 96
"data.max_eval_examples" = 64
"train.log_every" = 1
"run.loggers" = ["jsonl"]
[grid]
"optimizer.lr" = [1e-3, 1e-4]
"data.train_batch_size" = [8, 16]
TOML
"$runner" sweep "$work/sweep.toml" >"$work/sweep.log" 2>&1 || fail "the sweep failed; see $work/sweep.log"

"$runner" report "$run_dir" --out "$work/smoke.html" || fail "runner report of the smoke run failed"
"$runner" report "$work/runs/tiny4" --out "$work/sweep.html" || fail "runner report of the sweep failed"
# The same run against its elapsed time: every series keeps its points on that axis too.
"$runner" report "$run_dir" --x time --out "$work/smoke-time.html" || fail "runner report --x time failed"

# --force-dark-mode makes prefers-color-scheme: dark match.
render() {  # NAME HEIGHT
  local flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
               --user-data-dir="$work/chromium-profile" --window-size=1280,"$2")
  chromium "${flags[@]}" --screenshot="$work/$1-light.png" "file://$work/$1.html" >>"$work/chromium.log" 2>&1 &&
    chromium "${flags[@]}" --force-dark-mode --screenshot="$work/$1-dark.png" "file://$work/$1.html" \
      >>"$work/chromium.log" 2>&1 &&
    chromium "${flags[@]}" --dump-dom "file://$work/$1.html" >"$work/$1.dom.html" 2>>"$work/chromium.log" ||
    fail "chromium could not render $1.html; see $work/chromium.log"
}
render smoke 2600
render sweep 3600
chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/chromium-profile" --dump-dom \
  "file://$work/smoke-time.html" >"$work/smoke-time.dom.html" 2>>"$work/chromium.log" ||
  fail "chromium could not render smoke-time.html; see $work/chromium.log"

if [[ -n $shots ]]; then  # the screenshots in README.md and docs/results.md: the top of each page, at half scale
  for page in smoke sweep; do
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/chromium-profile" \
      --window-size=1360,1500 --force-device-scale-factor=0.5 --screenshot="$shots/report-$page.png" \
      "file://$work/$page.html" >>"$work/chromium.log" 2>&1
  done
fi

/usr/bin/python3 "$src/tests/report/check_render.py" \
  smoke "$run_dir" "$work/smoke.dom.html" "$work/smoke-light.png" "$work/smoke-dark.png" \
  sweep "$work/runs/tiny4" "$work/sweep.dom.html" "$work/sweep-light.png" "$work/sweep-dark.png" \
  smoke-time "$run_dir" "$work/smoke-time.dom.html" - -
