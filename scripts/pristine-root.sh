#!/usr/bin/env bash
# Run a command on a copy of this checkout inside a pristine Debian 12 root,
# as root, with CI=true and an empty environment: a package that
# scripts/install-deps.sh forgets to install fails here, not on a new user's
# machine. What .ci/run uses; also the way to check a change by hand.
#
#   scripts/pristine-root.sh [--keep] [--] [COMMAND...]
#       default COMMAND: bash -c 'scripts/install-deps.sh && scripts/test.sh'
#
# The base root (mmdebstrap --variant=apt bookworm: Debian's essential and
# apt, nothing else) is built once and cached outside the checkout, in
# $VP_ROOT_CACHE (default /var/cache/variopath-root), as a tarball named after
# its mmdebstrap arguments; it is rebuilt when older than $VP_ROOT_MAX_DAYS
# (default 30). Every run unpacks it afresh into a temporary folder under
# /var/tmp, copies the committed tree (git clone of HEAD: uncommitted changes
# are NOT included) to /work/project and ../shared, when present, to
# /work/shared, runs COMMAND there and removes the root afterwards.
# Downloaded .deb files are kept in $VP_ROOT_CACHE/apt-archives (a download
# cache only: every package is still installed from scratch); set
# VP_ROOT_APT_CACHE=0 to download afresh.
#
# When COMMAND fails, what explains the failure is copied back into the
# checkout's .pristine-root/ (ctest logs, fuzz reproducers). --keep keeps the
# root to look inside. Needs root (chroot, mounts), mmdebstrap (installed
# with apt-get when missing) and network access to Debian's mirror.
set -euo pipefail

keep=0
while (($#)); do
  case "$1" in
    --keep) keep=1; shift ;;
    --) shift; break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
(($#)) || set -- bash -c 'scripts/install-deps.sh && scripts/test.sh'

log() { printf 'pristine-root: %s\n' "$*" >&2; }
die() { printf 'pristine-root: error: %s\n' "$*" >&2; exit 2; }

[[ "$(id -u)" == 0 ]] || die "needs root (chroot and mounts); run it as root"
cache=${VP_ROOT_CACHE:-/var/cache/variopath-root}
max_days=${VP_ROOT_MAX_DAYS:-30}
[[ "$max_days" =~ ^[0-9]+$ ]] || die "VP_ROOT_MAX_DAYS: not a whole number of days: $max_days"

# What this script itself needs on the host: mmdebstrap, mount (not in a
# minimal root), and git to copy the committed tree.
needed=()
command -v mmdebstrap >/dev/null || needed+=(mmdebstrap)
command -v mount >/dev/null || needed+=(mount)
command -v git >/dev/null || needed+=(git ca-certificates)
if ((${#needed[@]})); then
  command -v apt-get >/dev/null || die "missing ${needed[*]} and no apt-get to install them"
  log "installing ${needed[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${needed[@]}" >&2
fi
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)

# The base root, keyed by what builds it.
suite=bookworm
mmdebstrap_args=(--variant=apt --mode=root --quiet "$suite")
key=$(printf '%s\n' "${mmdebstrap_args[@]}" | sha256sum | cut -c1-12)
base="$cache/$suite-$key.tar"
mkdir -p "$cache"
if [[ -s "$base" ]] && [[ -n "$(find "$base" -mtime "+$max_days" 2>/dev/null)" ]]; then
  log "base root older than $max_days days: rebuilding"
  rm -f "$base"
fi
if [[ ! -s "$base" ]]; then
  log "building the base Debian 12 root with mmdebstrap (once; cached in $cache)"
  start=$(date +%s)
  mmdebstrap "${mmdebstrap_args[@]}" "$base.part.tar" >&2
  mv "$base.part.tar" "$base"
  log "base root built in $(($(date +%s) - start)) s"
fi

root=$(mktemp -d /var/tmp/variopath-root.XXXXXX)
mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
  if ((keep)); then
    log "kept the root at $root"
  elif grep -q " $root/" /proc/self/mounts 2>/dev/null; then
    # Never delete through a mount that is still there (the bind mount of
    # /dev, say): leave the root and say so.
    log "warning: something is still mounted under $root; not deleting it (umount it, then rm -rf it)"
  else
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT
mount_in() {  # mount_in TARGET ARGS...: mount ARGS... on $root/TARGET, undone at exit
  mkdir -p "$root/$1"
  mount "${@:2}" "$root/$1"
  mounts+=("$root/$1")
}

tar -C "$root" -xf "$base"
# A machine's own name resolves on an installed system (the installer writes
# /etc/hosts); a bare root has no /etc/hosts, and every lookup of localhost or
# the host name then waits for DNS (Open MPI's start-up took 15 s a run).
for f in resolv.conf hosts hostname; do cp "/etc/$f" "$root/etc/$f" 2>/dev/null || true; done
mkdir -p "$root/work"
git clone -q --no-hardlinks "$repo" "$root/work/project"
if [[ -d "$repo/../shared" ]]; then cp -r "$repo/../shared" "$root/work/shared"; fi

mount_in proc -t proc proc
mount_in sys -t sysfs sys
mount_in dev --bind /dev
mount_in dev/pts --bind /dev/pts
mount_in dev/shm -t tmpfs shm
if [[ "${VP_ROOT_APT_CACHE:-1}" != 0 ]]; then
  mkdir -p "$cache/apt-archives/partial"
  mount_in var/cache/apt/archives --bind "$cache/apt-archives"
  # Debian's default keeps downloaded packages; make sure nothing in the root
  # says otherwise (docker-style images delete them after install).
  rm -f "$root/etc/apt/apt.conf.d/docker-clean"
fi

log "running \"$*\" at $(git -C "$repo" rev-parse --short HEAD) in a fresh Debian 12 root ($root)"
start=$(date +%s)
set +e
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  CI=true LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive TERM=dumb \
  ${VP_TEST_PHASES:+VP_TEST_PHASES="$VP_TEST_PHASES"} ${VP_FUZZ_SECONDS:+VP_FUZZ_SECONDS="$VP_FUZZ_SECONDS"} \
  /bin/bash -c 'cd /work/project && exec "$@"' pristine-root "$@"
rc=$?
set -e
log "exit $rc after $(($(date +%s) - start)) s"

if ((rc != 0)); then
  out="$repo/.pristine-root"
  rm -rf "$out"
  mkdir -p "$out"
  (cd "$root/work/project" && find . -path '*/Testing/Temporary/LastTest*.log' -o -path '*/fuzz-artifacts/*' -type f) |
    while read -r f; do mkdir -p "$out/$(dirname "$f")" && cp "$root/work/project/$f" "$out/$f"; done
  if [[ -n "$(find "$out" -type f -print -quit)" ]]; then
    log "ctest logs and fuzz reproducers copied to $out/"
  else
    rmdir "$out"
  fi
fi
exit "$rc"
