#!/usr/bin/env bash
# Builds ./build-cuda, the runner and every test (tests/cuda included), against a
# CUDA LibTorch 2.x. Building needs no GPU; running the CUDA code does
# (scripts/cuda_check.sh). bash scripts/test.sh cuda-build builds and checks it here.
#   scripts/build_cuda.sh [TORCH_PREFIX] [extra meson setup arguments...]
# TORCH_PREFIX is a LibTorch zip's folder or a pip torch's package folder (include/, lib/).
# Without it, the torch of a venv is used:
#   PIP_TORCH_VENV=DIR  its python is DIR/bin/python3 (/usr: the system's python3). Default
#                       build-cuda/venv, where `pip install torch` (PyPI's torch for Linux
#                       x86-64 is the CUDA wheel, about 3 GB) runs when it has no torch.
#   PIP_TORCH_SPEC=...  what pip installs there (default: torch)
# The other dependencies are scripts/setup.sh's packages; on a machine without a package
# registry (../shared/gpu-kit/README.md), Debian packages unpacked into a prefix:
#   RUNNER_DEPS_PREFIX=DIR  headers, libraries and pkg-config files under DIR/usr
#   RUNNER_DEPS_DEBS=DIR    first unpack DIR/*.deb into RUNNER_DEPS_PREFIX (never into /)
# nccl.h comes from the nvidia-nccl package beside a pip torch, else the compiler's path;
# the CUDA headers from /usr/local/cuda, else the wheel's nvidia/cu13 (-Dnvidia_cuda_dir=DIR).
# The wheel's own fmt headers are handled by meson/torch/meson.build (FMT_HEADER_ONLY).
# RUNNER_BUILD_JOBS=N caps ninja's parallel jobs. The extra meson arguments come after
# this script's and replace an option given twice. A configured build-cuda is kept and
# reconfigured when the torch changes or meson arguments are given.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build-cuda
die() { echo "build_cuda: $2" >&2; exit "$1"; }
log() { echo "build_cuda: $*"; }

torch_of() {  # the torch package folder of python $1, or nothing
  "$1" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null || true
}

# The venv's torch, installed there when it has none (the default venv only).
venv_torch() {
  local venv=${PIP_TORCH_VENV:-$build/venv} prefix
  prefix=$(torch_of "$venv/bin/python3")
  if [[ -z $prefix ]]; then
    [[ -n ${PIP_TORCH_VENV:-} ]] && die 2 "PIP_TORCH_VENV=$venv: $venv/bin/python3 cannot import torch (unset it to let this script install one into $build/venv)"
    mkdir -p "$build"
    [[ -x $venv/bin/python3 ]] || python3 -m venv "$venv" >&2 ||
      die 1 "cannot create a venv in $venv (Debian: apt-get install python3-venv)"
    echo "build_cuda: installing ${PIP_TORCH_SPEC:-torch} into $venv (about 3 GB; log in $build/pip.log)" >&2
    "$venv/bin/pip" install "${PIP_TORCH_SPEC:-torch}" >"$build/pip.log" 2>&1 || {
      tail -n 5 "$build/pip.log" >&2; die 1 "pip failed; see $build/pip.log"; }
    prefix=$(torch_of "$venv/bin/python3")
  fi
  echo "$prefix"
}

# Unpacks the .debs once (dpkg -x, no maintainer scripts) and points their
# pkg-config files at the prefix instead of /usr.
unpack_debs() {
  local prefix=$1 debs=$2 deb
  [[ -f $prefix/.runner-debs-unpacked ]] && return
  compgen -G "$debs/*.deb" >/dev/null || die 2 "RUNNER_DEPS_DEBS=$debs holds no .deb files (the gpu-kit's are in ../shared/gpu-kit/debs)"
  mkdir -p "$prefix"
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$prefix" || die 1 "dpkg -x $deb failed"; done
  find "$prefix" -name '*.pc' -exec sed -i "s#=/usr#=$prefix/usr#g" {} +
  # A -dev package whose runtime package is not in the kit (libcurl: the machine has
  # it) leaves a dangling libX.so and a static libX.a: both go, or -lX would take the
  # static one (and miss its own dependencies: zlib's inflateEnd for libcurl.a).
  local so
  while IFS= read -r -d '' so; do rm -f "$so" "${so%.so}.a"; done < <(find "$prefix" -xtype l -name '*.so' -print0)
  touch "$prefix/.runner-debs-unpacked"
  log "unpacked $(compgen -G "$debs/*.deb" | wc -l) packages from $debs into $prefix"
}

# Meson arguments that make the prefix's headers, libraries and pkg-config files
# visible, stored in build-cuda so that a later plain `ninja -C build-cuda` finds
# them; the rpath lets the runner find the prefix's libraries without LD_LIBRARY_PATH.
deps_args() {
  local prefix=$1 libdir
  libdir=$prefix/usr/lib/$(gcc -print-multiarch)
  args+=("-Dpkg_config_path=$libdir/pkgconfig,$prefix/usr/share/pkgconfig"
         "-Dcpp_args=-isystem$prefix/usr/include" "-Dcpp_link_args=-L$libdir -Wl,-rpath,$libdir")
}

# The CUDA toolkit's headers, else those a CUDA 13 wheel ships beside torch.
cuda_headers() {
  local wheel_cuda
  wheel_cuda=$(dirname "$1")/nvidia/cu13
  if [[ -f /usr/local/cuda/include/cuda_runtime_api.h ]]; then echo /usr/local/cuda
  elif [[ -f $wheel_cuda/include/cuda_runtime_api.h ]]; then echo "$wheel_cuda"
  fi
}

prefix=${1:-}
shift || true
[[ -n $prefix ]] || prefix=$(venv_torch)
[[ -f $prefix/include/torch/script.h && -d $prefix/lib ]] ||
  die 2 "TORCH_PREFIX $prefix is no LibTorch (no include/torch/script.h): give a LibTorch folder or a pip torch's torch/ folder"
[[ -f $prefix/lib/libtorch_cuda.so ]] ||
  die 2 "$prefix is a CPU LibTorch (no lib/libtorch_cuda.so): use a CUDA build (pip install torch on Linux x86-64, or a CUDA LibTorch zip)"

args=(-Dtorch_prefix="$prefix" -Dtorch_cuda=enabled)
nccl_h=$(dirname "$prefix")/nvidia/nccl/include
[[ -f $nccl_h/nccl.h ]] && args+=(-Dnccl_include="$nccl_h")
cuda_dir=$(cuda_headers "$prefix")
if [[ -n $cuda_dir ]]; then args+=(-Dnvidia_cuda_dir="$cuda_dir")
elif [[ " $* " != *" -Dnvidia_cuda_dir="* ]]; then
  die 2 "no CUDA headers (cuda_runtime_api.h) in /usr/local/cuda/include or beside $prefix: install the CUDA toolkit, or add -Dnvidia_cuda_dir=DIR (DIR/include)"
fi
if [[ -n ${RUNNER_DEPS_PREFIX:-} ]]; then
  [[ -n ${RUNNER_DEPS_DEBS:-} ]] && unpack_debs "$RUNNER_DEPS_PREFIX" "$RUNNER_DEPS_DEBS"
  [[ -d $RUNNER_DEPS_PREFIX/usr/include ]] || die 2 "RUNNER_DEPS_PREFIX=$RUNNER_DEPS_PREFIX has no usr/include: unpack the .debs there (RUNNER_DEPS_DEBS=../shared/gpu-kit/debs)"
  deps_args "$RUNNER_DEPS_PREFIX"
elif [[ -n ${RUNNER_DEPS_DEBS:-} ]]; then
  die 2 "RUNNER_DEPS_DEBS needs RUNNER_DEPS_PREFIX, the folder to unpack them into (e.g. /opt/runner-deps)"
fi

if [[ ! -f $build/build.ninja ]]; then
  log "configuring $build against $prefix (log in $build/meson-setup.log)"
  mkdir -p "$build"
  meson setup "$build" "${args[@]}" "$@" >"$build/meson-setup.log" 2>&1 || {
    tail -n 30 "$build/meson-setup.log" >&2; die 1 "meson setup failed; see $build/meson-setup.log"; }
elif ! grep -qF -- "$prefix/lib" "$build/build.ninja" || (($#)); then
  log "reconfiguring $build against $prefix"  # another torch, or new meson arguments
  meson configure "$build" "${args[@]}" "$@" >/dev/null
fi
log "building $build (log in $build/build.log)"
ninja -C "$build" ${RUNNER_BUILD_JOBS:+-j "$RUNNER_BUILD_JOBS"} >"$build/build.log" 2>&1 || {
  grep -E "error|FAILED" "$build/build.log" | head -n 30 >&2; die 1 "the build failed; see $build/build.log"; }
log "built $build/runner and its tests"
