#!/usr/bin/env bash
# A one-node Slurm cluster from Debian 12's packages, private to one test run: its own munge key
# and socket, its own slurm.conf, spool and state directories, all under DIR, on free ports.
# Nothing of the machine's own Slurm or munge (if any) is read or touched.
#   slurm_cluster.sh start DIR   starts munged, slurmctld and slurmd; prints SLURM_CONF=...
#   slurm_cluster.sh stop DIR    stops them by the pids they wrote (never by name)
# Why these settings: proctrack/linuxproc and task/none need no cgroup hierarchy (containers
# and CI machines often have none writable); the node's name is this machine's short hostname
# because slurmd finds its own NodeName by it (given with -N too); the daemons talk over 127.0.0.1,
# so a machine whose name does not resolve still runs it; SlurmUser=root: the test runs as root.
set -euo pipefail
export PATH=$PATH:/usr/sbin

cmd=${1:?usage: slurm_cluster.sh start|stop DIR}
dir=${2:?usage: slurm_cluster.sh start|stop DIR}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

stop_pid() {
  local f=$1
  [ -s "$f" ] || return 0
  local pid
  pid=$(cat "$f")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

case $cmd in
start)
  mkdir -p "$dir"/{munge,spool,state,log}
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  sock=$dir/munge/munge.socket
  munged --force --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ {print int($2/1024*0.9)}' /proc/meminfo)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=edashim-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF"
  slurmd -f "$SLURM_CONF" -N "$host"
  # Ready when the node is idle: a job submitted before that would wait for the node anyway,
  # but a test that times out then would say less than this message.
  for _ in $(seq 100); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
    case $state in idle*|mixed*|allocated*) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
    sleep 0.2
  done
  echo "slurm_cluster.sh: the node did not become idle in 20 s (state: ${state:-none}); logs in $dir/log" >&2
  exit 1
  ;;
stop)
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
  ;;
*)
  echo "usage: slurm_cluster.sh start|stop DIR" >&2
  exit 2
  ;;
esac
