#!/usr/bin/env bash
# Runs a command of this repository in a fresh Debian 12 root made for it, on a clean clone
# of the commit checked out here, so that nothing installed on this machine by hand can
# stand in for a missing install step (docs/development.md#a-fresh-debian-root). Needs root,
# mmdebstrap and unshare (util-linux); the root is made with the host's own apt sources.
#
#   scripts/in-fresh-root.sh [--keep] [--commit REV] COMMAND [ARGS...]
#   scripts/in-fresh-root.sh scripts/test.sh core store
#
# The command runs in the clone (/root/mace inside the root) as root, with an environment of
# its own: PATH, HOME, LANG and MACE_IN_FRESH_ROOT=1, nothing of the caller's. The root gets
# /proc, /sys, /dev and /dev/pts bound from the host and a tmpfs on /dev/shm, in a mount
# namespace of its own, so they are gone when the command ends, whatever it left running.
# Exits with the command's status; the root is removed afterwards unless --keep (its path is
# printed then). MACE_FRESH_ROOT_PARENT: where the root is made (default /var/tmp).
set -euo pipefail

keep=0
commit=HEAD
while [ $# -gt 0 ]; do
  case $1 in
    --keep) keep=1; shift ;;
    --commit) commit=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "in-fresh-root: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -eq 0 ]; then
  echo "usage: scripts/in-fresh-root.sh [--keep] [--commit REV] COMMAND [ARGS...]" >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "in-fresh-root: needs root (mmdebstrap, chroot and mounts)" >&2
  exit 2
fi
for tool in mmdebstrap unshare git; do
  command -v "$tool" >/dev/null || {
    echo "in-fresh-root: needs $tool (apt-get install -y mmdebstrap util-linux git)" >&2
    exit 2
  }
done

source_repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
sha=$(git -C "$source_repo" rev-parse --verify "$commit^{commit}")
parent=${MACE_FRESH_ROOT_PARENT:-/var/tmp}
root=$(mktemp -d "$parent/mace-fresh-root.XXXXXX")

# Only ever removes the root once nothing is mounted under it: a bind of /dev still there
# would make rm delete the host's devices.
remove_root() {
  if grep -q " $root/" /proc/mounts; then
    echo "in-fresh-root: $root still has mounts; left in place" >&2
    return
  fi
  rm -rf --one-file-system "$root"
}
finish() {
  local rc=$?
  if [ "$keep" = 1 ]; then echo "in-fresh-root: kept $root"; else remove_root; fi
  exit $rc
}
trap finish EXIT

# The host's apt sources, so a machine that reaches Debian only through a mirror builds its
# root from that mirror too; without any, mmdebstrap's default (deb.debian.org).
mirrors=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -s "$f" ] && grep -q '^[^#]' "$f" && mirrors+=("$f")
done

start=$SECONDS
echo "in-fresh-root: making a Debian 12 (bookworm) minbase root in $root"
mmdebstrap --quiet --variant=minbase bookworm "$root" "${mirrors[@]}"
echo "in-fresh-root: root made in $((SECONDS - start)) s"

# Name resolution as on the host (the Slurm the tests start names this host).
cp /etc/resolv.conf /etc/hosts "$root/etc/"
git clone --quiet --no-local "$source_repo" "$root/root/mace"
git -C "$root/root/mace" -c advice.detachedHead=false checkout --quiet --detach "$sha"
echo "in-fresh-root: a clean clone of $sha in /root/mace"

rc=0
unshare --mount --propagation private -- /bin/bash -s -- "$root" "$@" <<'INNER' || rc=$?
set -euo pipefail
root=$1; shift
mount --rbind /proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
quoted=$(printf ' %q' "$@")
exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 MACE_IN_FRESH_ROOT=1 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c "cd /root/mace && exec$quoted"
INNER
echo "in-fresh-root: the command exited $rc after $((SECONDS - start)) s in all"
exit $rc
