#!/usr/bin/env bash
# A real Slurm of three nodes on this one machine for the tests: munged, slurmctld and one
# slurmd per node from Debian's packages (each slurmd with its own node name, port, spool
# and pid file, as Slurm allows on one host), all in one directory of their own, with no
# systemd and nothing of the machine's own Slurm or munge touched (own munge socket and
# key, own ports, own state). The nodes share the machine's file system, as the nodes of a
# cluster share one.
#
#   slurm_cluster.sh start DIR              # prints "SLURM_CONF=DIR/slurm.conf",
#                                           # "NODE=<the first>" and "NODES=<n1> <n2> <n3>"
#   slurm_cluster.sh stop DIR               # cancels every job, stops the daemons
#   slurm_cluster.sh kill-slurmd DIR NODE   # SIGKILL to NODE's slurmd (a node that dies)
#   slurm_cluster.sh start-slurmd DIR NODE  # NODE's slurmd again (the node comes back)
#
# Needs root (slurmd starts jobs as their owners) and the packages slurm-wlm and munge.
# Each node offers 2 CPUs, 4000 MiB and the generic resource openpiton:2, like the machine
# measured in ../shared/slurm-notes.md.
set -euo pipefail

usage="usage: slurm_cluster.sh start|stop DIR | slurm_cluster.sh kill-slurmd|start-slurmd DIR NODE"
command=${1:?$usage}
dir=${2:?$usage}

# Fixed names whatever the machine is called, so tests can name them.
nodes=(mace-node1 mace-node2 mace-node3)

stop() {
  local conf=$dir/slurm.conf
  if [ -f "$conf" ]; then
    SLURM_CONF=$conf scancel --quiet --user=root 2>/dev/null || true
  fi
  local name
  for name in "${nodes[@]/#/slurmd.}" slurmctld munged; do
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

# start_slurmd NODE: the node's slurmd, outliving this script.
start_slurmd() {
  setsid slurmd -D -N "$1" -f "$dir/slurm.conf" </dev/null >>"$dir/log/slurmd.$1.out" 2>&1 &
  echo $! >"$dir/run/slurmd.$1.pid"
}

# How many nodes take work.
nodes_up() {
  sinfo -h -N -o %T | grep -Ec '^(idle|mixed|allocated)$' || true
}

start_munge() {
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
  setsid runuser -u munge -- munged --foreground --force \
    --socket="$socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" </dev/null >"$dir/log/munged.out" 2>&1 &
  echo $! >"$dir/run/munged.pid"
  wait_for "test -S '$socket'" 50 || { echo "slurm_cluster: munged did not start:" >&2; cat "$dir/log/munged.out" "$dir/munge/munged.log" >&2 2>/dev/null; exit 1; }
}

write_conf() {
  local ctld_port slurmd_port node node_lines=""
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  for node in "${nodes[@]}"; do
    node_lines+="NodeName=$node NodeHostname=$(hostname) NodeAddr=127.0.0.1 Port=$(free_port) CPUs=2 RealMemory=4000 Gres=openpiton:2 State=UNKNOWN"$'\n'
    mkdir -p "$dir/spool/$node"
  done
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
SlurmdPidFile=$dir/run/slurmd.%n.pid.own
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
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
# A node whose slurmd died is marked DOWN within seconds, not minutes.
SlurmdTimeout=10
GresTypes=openpiton
${node_lines}PartitionName=debug Nodes=$(IFS=,; echo "${nodes[*]}") Default=YES MaxTime=INFINITE State=UP
EOF
  for node in "${nodes[@]}"; do echo "NodeName=$node Name=openpiton Count=2"; done >"$dir/gres.conf"
}

start() {
  for tool in munged slurmctld slurmd sinfo runuser; do
    command -v "$tool" >/dev/null || { echo "slurm_cluster: $tool is not installed (apt-get install slurm-wlm munge)" >&2; exit 3; }
  done
  [ "$(id -u)" -eq 0 ] || { echo "slurm_cluster: needs root (slurmd runs jobs as their owners)" >&2; exit 3; }

  mkdir -p "$dir"/{munge,state,spool,log,run}
  dir=$(cd "$dir" && pwd)
  socket=$dir/munge/munge.socket
  start_munge
  write_conf
  export SLURM_CONF=$dir/slurm.conf

  setsid slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/run/slurmctld.pid"
  local node
  for node in "${nodes[@]}"; do start_slurmd "$node"; done

  if ! wait_for "[ \"\$(nodes_up)\" -eq ${#nodes[@]} ]" 300; then
    echo "slurm_cluster: the nodes did not come up:" >&2
    sinfo -N -l >&2 || true
    tail -n 30 "$dir/log/slurmctld.log" "$dir/log/"slurmd.*.log "$dir/log/"*.out >&2 2>/dev/null || true
    stop
    exit 1
  fi
  echo "SLURM_CONF=$SLURM_CONF"
  echo "NODE=${nodes[0]}"
  echo "NODES=${nodes[*]}"
}

known_node() {
  local node
  for node in "${nodes[@]}"; do [ "$node" = "$1" ] && return 0; done
  echo "slurm_cluster: no node named '$1' (${nodes[*]})" >&2
  exit 2
}

case $command in
  start) start ;;
  stop) stop ;;
  kill-slurmd)
    known_node "${3:?$usage}"
    kill -KILL "$(cat "$dir/run/slurmd.$3.pid")" 2>/dev/null || true ;;
  start-slurmd)
    known_node "${3:?$usage}"
    start_slurmd "$3" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
