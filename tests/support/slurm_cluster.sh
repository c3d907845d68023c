#!/usr/bin/env bash
# A real single-node Slurm for the tests: munged, slurmctld and slurmd from Debian's
# packages, all in one directory of their own, with no systemd and nothing of the machine's
# own Slurm or munge touched (own munge socket and key, own ports, own state).
#
#   slurm_cluster.sh start DIR   # prints "SLURM_CONF=DIR/slurm.conf" and "NODE=<name>"
#   slurm_cluster.sh stop DIR    # cancels every job, stops the daemons
#
# Needs root (slurmd starts jobs as their owners) and the packages slurm-wlm and munge.
# The node offers 2 CPUs, 4000 MiB and the generic resource openpiton:2, like the machine
# measured in ../shared/slurm-notes.md.
set -euo pipefail

command=${1:?usage: slurm_cluster.sh start|stop DIR}
dir=${2:?usage: slurm_cluster.sh start|stop DIR}

# One name for the node whatever the machine is called, so tests can name it.
node=mace-node1

stop() {
  local conf=$dir/slurm.conf
  if [ -f "$conf" ]; then
    SLURM_CONF=$conf scancel --quiet --user=root 2>/dev/null || true
  fi
  for name in slurmd slurmctld munged; do
    local pid_file=$dir/run/$name.pid
    [ -f "$pid_file" ] || continue
    local pid
    pid=$(cat "$pid_file" 2>/dev/null || true)
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pid_file"
  done
}

# A TCP port nobody listens on, from the kernel.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Waits up to $2 tenths of a second for "$1" to succeed.
wait_for() {
  local tries=$2
  for _ in $(seq 1 "$tries"); do
    if eval "$1" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  return 1
}

start() {
  for tool in munged slurmctld slurmd sinfo runuser; do
    command -v "$tool" >/dev/null || { echo "slurm_cluster: $tool is not installed (apt-get install slurm-wlm munge)" >&2; exit 3; }
  done
  [ "$(id -u)" -eq 0 ] || { echo "slurm_cluster: needs root (slurmd runs jobs as their owners)" >&2; exit 3; }

  mkdir -p "$dir"/{munge,state,spool,log,run}
  dir=$(cd "$dir" && pwd)
  # munged, running as munge, must reach its directory inside ours.
  chmod 0755 "$dir"
  # munged checks that its directories belong to it and that no one else can write the key.
  chown munge:munge "$dir/munge"
  chmod 0700 "$dir/munge"
  if [ ! -f "$dir/munge/munge.key" ]; then
    head -c 1024 /dev/urandom >"$dir/munge/munge.key"
    chown munge:munge "$dir/munge/munge.key"
    chmod 0400 "$dir/munge/munge.key"
  fi
  local socket=$dir/munge/munge.socket
  setsid runuser -u munge -- munged --foreground --force \
    --socket="$socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" </dev/null >"$dir/log/munged.out" 2>&1 &
  echo $! >"$dir/run/munged.pid"
  wait_for "test -S '$socket'" 50 || { echo "slurm_cluster: munged did not start:" >&2; cat "$dir/log/munged.out" "$dir/munge/munged.log" >&2 2>/dev/null; exit 1; }

  local ctld_port slurmd_port
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  cat >"$dir/slurm.conf" <<EOF
ClusterName=mace-test
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid.own
SlurmdPidFile=$dir/run/slurmd.pid.own
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=500
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=1
KillWait=5
InactiveLimit=20
MinJobAge=300
SlurmdTimeout=30
GresTypes=openpiton
NodeName=$node NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=2 RealMemory=4000 Gres=openpiton:2 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  echo "NodeName=$node Name=openpiton Count=2" >"$dir/gres.conf"
  export SLURM_CONF=$dir/slurm.conf

  setsid slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/run/slurmctld.pid"
  setsid slurmd -D -N "$node" -f "$SLURM_CONF" </dev/null >"$dir/log/slurmd.out" 2>&1 &
  echo $! >"$dir/run/slurmd.pid"

  if ! wait_for "sinfo -h -n '$node' -o %T | grep -Eq '^(idle|mixed|allocated)'" 300; then
    echo "slurm_cluster: the node did not come up:" >&2
    sinfo -N -l >&2 || true
    tail -n 30 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$dir/log/"*.out >&2 2>/dev/null || true
    stop
    exit 1
  fi
  echo "SLURM_CONF=$SLURM_CONF"
  echo "NODE=$node"
}

case $command in
  start) start ;;
  stop) stop ;;
  *) echo "usage: slurm_cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
