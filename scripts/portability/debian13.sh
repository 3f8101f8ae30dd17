#!/usr/bin/env bash
# On demand (bash scripts/test.sh debian13 [--keep] [AREA...]): builds the runner
# and runs its tests on Debian 13 (trixie), with trixie's LibTorch 2.6 and
# Catch2 v3, in a tree debootstrapped on this machine under build/debian13/root.
# The tree gets a copy of this checkout (the files git tracks or does not ignore)
# at /src/runner and ../shared, read-only, at /src/shared; inside it,
# scripts/setup.sh installs the packages and builds, scripts/test.sh tests.
# The tree is removed at the end; --keep leaves it (and its ccache), and a kept
# tree is used again next time. Needs root and Debian's mirror:
#   DEBIAN13_MIRROR=URL  (default http://deb.debian.org/debian)
#   RUNNER_BUILD_JOBS=N  ninja's parallel jobs inside (default 2)
set -euo pipefail
cd "$(dirname "$0")/../.."

src=$PWD
shared=$(realpath -m "${RUNNER_SHARED:-$src/../shared}")
area=$src/build/debian13
tree=$area/root
mirror=${DEBIAN13_MIRROR:-http://deb.debian.org/debian}
keep=0 areas=()
for arg in "$@"; do
  case $arg in
    --keep) keep=1 ;;
    *) areas+=("$arg") ;;
  esac
done

log() { echo "debian13: $*"; }
die() { echo "debian13: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot and bind mounts): run it as root"
[[ -d $shared/data ]] || die "no GLUE data in $shared: set RUNNER_SHARED to the shared folder"
mkdir -p "$area"

mounts_in_tree() { findmnt -rn -o TARGET | grep -F "$tree/" || true; }

# Unmounts what this script mounted, deepest first; the tree is deleted only when
# nothing is mounted in it any more (rm must never reach /dev or ../shared).
close_tree() {
  local m
  for m in src/shared sys dev proc; do
    mountpoint -q "$tree/$m" 2>/dev/null && umount -R "$tree/$m"
  done
  if [[ -n $(mounts_in_tree) ]]; then
    echo "debian13: still mounted, so $tree is left in place:" >&2; mounts_in_tree >&2; return
  fi
  if ((keep)); then log "kept $tree (used again by the next run)"; return; fi
  rm -rf --one-file-system "$tree"
  log "removed $tree"
}

make_tree() {
  [[ -f $tree/.runner-debootstrap-done ]] && return
  command -v debootstrap >/dev/null || {
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >"$area/apt-host.log" 2>&1 ||
      die "apt-get install debootstrap failed (see $area/apt-host.log)"
  }
  rm -rf --one-file-system "$tree"
  log "debootstrap trixie from $mirror (log in $area/debootstrap.log)"
  debootstrap --variant=minbase trixie "$tree" "$mirror" >"$area/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $area/debootstrap.log"
  touch "$tree/.runner-debootstrap-done"
}

open_tree() {
  mountpoint -q "$tree/proc" || mount -t proc proc "$tree/proc"
  mountpoint -q "$tree/sys" || mount --rbind --make-rslave /sys "$tree/sys"
  # /dev/pts: the init test's tmux. A /dev left without it (an interrupted run) is mounted anew.
  if ! mountpoint -q "$tree/dev/pts"; then
    mountpoint -q "$tree/dev" && umount -R "$tree/dev"
    mount --rbind --make-rslave /dev "$tree/dev"
  fi
  mkdir -p "$tree/src/shared"
  mountpoint -q "$tree/src/shared" || {
    mount --bind "$shared" "$tree/src/shared"
    mount -o remount,bind,ro "$tree/src/shared"
  }
  cp /etc/resolv.conf "$tree/etc/resolv.conf"
  # The host's locally added CAs (a TLS-inspecting proxy's, say): pip in the tree
  # (the MiniLM package) must trust what the host trusts. Debian's pip reads the
  # system bundle, which ca-certificates (setup.sh installs it) builds with these.
  if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
    mkdir -p "$tree/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$tree/usr/local/share/ca-certificates/"
  fi
}

# A kept tree keeps its build folder, so that a second run rebuilds only what changed.
copy_checkout() {
  mkdir -p "$tree/src/runner"
  find "$tree/src/runner" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
  git ls-files -z --cached --others --exclude-standard |
    tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$tree/src/runner"
}

# Runs a command line in the tree as a fresh root login would (the host's
# environment does not leak in).
in_tree() {
  chroot "$tree" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    RUNNER_BUILD_JOBS="${RUNNER_BUILD_JOBS:-2}" bash -c "$1" bash "${@:2}"
}

trap close_tree EXIT
trap 'exit 130' INT   # so that Ctrl-C and kill still unmount and remove the tree
trap 'exit 143' TERM
t0=$(date +%s)
make_tree
open_tree
copy_checkout
t1=$(date +%s)
log "tree ready in $((t1 - t0)) s; installing packages and building (scripts/setup.sh, log in $area/setup.log)"
# A kept tree has ca-certificates already: its bundle is rebuilt with the CAs copied now.
in_tree 'cd /src/runner && { ! command -v update-ca-certificates >/dev/null || update-ca-certificates; } &&
  bash scripts/setup.sh' >"$area/setup.log" 2>&1 || {
  tail -n 30 "$area/setup.log" >&2; die "scripts/setup.sh failed in the tree; see $area/setup.log"; }
in_tree 'dpkg-query -W libtorch-dev catch2 g++ libfmt-dev' | sed 's/^/debian13: /'
t2=$(date +%s)
log "setup and runner build took $((t2 - t1)) s; building and running the tests"
rc=0
in_tree 'cd /src/runner && bash scripts/test.sh "$@"' "${areas[@]}" 2>&1 | tee "$area/test.log" || rc=$?
cp "$tree/src/runner/build/meson-logs/testlog.txt" "$area/testlog.txt" 2>/dev/null || true
t3=$(date +%s)
log "$(tail -n 1 "$area/test.log") on Debian 13 in $((t3 - t0)) s" \
    "(tree $((t1 - t0)) s, packages + runner $((t2 - t1)) s, tests + their build $((t3 - t2)) s)"
exit "$rc"
