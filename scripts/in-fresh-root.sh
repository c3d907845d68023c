#!/usr/bin/env bash
# Runs a command of this repository in a fresh Debian 12 root made for it, on a clean clone
# of the commit checked out here, so that nothing installed on this machine by hand can
# stand in for a missing install step (docs/development.md#a-fresh-debian-root). Needs root,
# mmdebstrap and unshare (util-linux); the root is made with the host's own apt sources.
#
#   scripts/in-fresh-root.sh [--keep] [--commit REV] COMMAND [ARGS...]
#   scripts/in-fresh-root.sh scripts/test.sh core store
#
# The command runs in the clone (/work/mace inside the root: the suites run mace as another
# user too, who could not reach a tree under root's own 0700 home) as root, with an environment of
# its own: PATH, HOME, LANG and MACE_IN_FRESH_ROOT=1, nothing of the caller's but how this
# machine reaches the network: its name servers and hosts, a proxy, and the certificate
# authorities it trusts (a machine behind a TLS-inspecting proxy trusts the proxy's; the
# variables that name them, such as NODE_EXTRA_CA_CERTS for npm, and the files they name,
# are carried over, and so are the local authorities update-ca-certificates adds). The root gets
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

# Whatever still runs inside the root (a daemon a test started in a session of its own and
# left behind): nothing of the run outlives it.
kill_processes_in_root() {
  local p pids=()
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && pids+=("${p#/proc/}")
  done
  [ ${#pids[@]} -eq 0 ] || kill -KILL "${pids[@]}" 2>/dev/null || true
}

# Only ever removes the root once nothing is mounted under it: a bind of /dev still there
# would make rm delete the host's devices.
remove_root() {
  kill_processes_in_root
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

# Name resolution as on the host (the Slurm the tests start names this host), and how the
# host reaches the network through TLS: none of it is a package a test needs.
cp /etc/resolv.conf /etc/hosts "$root/etc/"
network_env=()
for var in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY SSL_CERT_FILE SSL_CERT_DIR \
           NODE_EXTRA_CA_CERTS CURL_CA_BUNDLE GIT_SSL_CAINFO REQUESTS_CA_BUNDLE; do
  value=${!var:-}
  [ -n "$value" ] || continue
  network_env+=("$var=$value")
  if [ -f "$value" ] && [ ! -e "$root$value" ]; then
    mkdir -p "$root$(dirname "$value")"
    cp "$value" "$root$value"
  fi
done
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
mkdir -p -m 0755 "$root/work"
git clone --quiet --no-local "$source_repo" "$root/work/mace"
# A commit no branch or tag holds (an experiment, a detached HEAD) is not cloned: fetch it
# by name, which the local upload-pack allows when told to.
if ! git -C "$root/work/mace" cat-file -e "$sha^{commit}" 2>/dev/null; then
  git -C "$root/work/mace" fetch --quiet --upload-pack "git -c uploadpack.allowAnySHA1InWant=true upload-pack" \
    "$source_repo" "$sha"
fi
git -C "$root/work/mace" -c advice.detachedHead=false checkout --quiet --detach "$sha"
echo "in-fresh-root: a clean clone of $sha in /work/mace"

# The command in a session of its own, so that stopping this script (INT, TERM) stops all of
# it, whatever it started, before the root is removed.
# (A background child of a script is no process group leader, so setsid makes it one
# without forking: its pid names the group.)
setsid unshare --mount --propagation private -- /bin/bash -s -- "$root" "${#network_env[@]}" \
  "${network_env[@]}" "$@" <<'INNER' &
set -euo pipefail
root=$1; shift
count=$1; shift
network_env=("${@:1:$count}"); shift "$count"
mount --rbind /proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
quoted=$(printf ' %q' "$@")
exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 MACE_IN_FRESH_ROOT=1 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${network_env[@]}" \
  /bin/bash -c "cd /work/mace && exec$quoted"
INNER
child=$!
stop_command() {
  kill -TERM -- "-$child" 2>/dev/null || true
  sleep 5
  kill -KILL -- "-$child" 2>/dev/null || true
  wait "$child" 2>/dev/null || true
  exit 130
}
trap stop_command INT TERM
rc=0
wait "$child" || rc=$?
trap - INT TERM
echo "in-fresh-root: the command exited $rc after $((SECONDS - start)) s in all"
exit $rc
