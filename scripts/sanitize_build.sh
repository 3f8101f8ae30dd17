#!/usr/bin/env bash
# Configures the ASan + UBSan build directory (default build-san) once; used by
# `scripts/test.sh --sanitize` and scripts/fuzz.sh, which share it: a second
# full sanitizer build would cost as much again on 2 cores. With clang 14 the
# objects also carry libFuzzer's coverage hooks (-Dfuzz=true); with only gcc
# the tests still run sanitized and fuzz.sh says what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-san}
[[ -f $build/build.ninja ]] && exit 0
# -O1 with line tables only: the stacks of a finding name file:line, and on 2
# cores this compiles much faster than debugoptimized (-O2 -g) with LibTorch headers.
options=(--buildtype=plain -Db_sanitize=address,undefined -Db_lundef=false)
if command -v clang++-14 >/dev/null; then
  CC=clang-14 CXX=clang++-14 meson setup "$build" "${options[@]}" "-Dcpp_args=-O1 -gline-tables-only" \
    -Dfuzz=true >/dev/null
else
  meson setup "$build" "${options[@]}" "-Dcpp_args=-O1 -g1" >/dev/null
fi
