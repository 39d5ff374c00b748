#!/usr/bin/env bash
# A one-node Slurm cluster in one folder, for the tests and for trying `workbench slurm` on one machine.
#
# Usage: scripts/slurm-cluster.sh start DIR    configure and start munged, slurmctld and slurmd; wait until the
#                                              node is idle; print the line that points Slurm's commands at it
#        scripts/slurm-cluster.sh stop DIR     cancel every job, stop every daemon, leave nothing running
#
# Everything lives in DIR: its own MUNGE key and socket, slurm.conf and cgroup.conf, state, spool, logs and pid
# files, and free ports on 127.0.0.1, so it never touches (or collides with) a system Slurm or MUNGE. Clients find
# it through SLURM_CONF=DIR/slurm.conf (DIR/env holds the export line). The daemons run as the current user
# (SlurmUser), which must be root for slurmd to start jobs the usual way; CI runs as root.
#
# No cgroups: processes are tracked through /proc (proctrack/linuxproc) and tasks are not bound (task/none), so it
# runs in containers and VMs whose cgroup tree Slurm cannot manage. Needs Debian's slurm-wlm and munge.
set -euo pipefail

say() { printf 'slurm-cluster: %s\n' "$*" >&2; }
usage() { say "usage: scripts/slurm-cluster.sh start|stop DIR"; exit 2; }

[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd -P)
conf="$dir/slurm.conf"

# A free TCP port on 127.0.0.1, other than the ones given: the kernel picks it (bind to port 0).
free_port() {
    local port
    while :; do
        port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        case " $* " in *" $port "*) ;; *) echo "$port"; return ;; esac
    done
}

# Processes that belong to this cluster: the daemons (their pid files), and anything started with this cluster's
# marker in its environment (the daemons' children: slurmstepd and the jobs it runs).
cluster_pids() {
    local file pid
    for file in "$dir"/run/*.pid; do
        [ -f "$file" ] || continue
        pid=$(cat "$file" 2>/dev/null || true)
        [ -n "$pid" ] && [ -d "/proc/$pid" ] && echo "$pid"
    done
    for pid in /proc/[0-9]*; do
        pid=${pid#/proc/}
        [ "$pid" = "$$" ] && continue
        if grep -qzxF "WORKBENCH_SLURM_CLUSTER=$dir" "/proc/$pid/environ" 2>/dev/null; then
            echo "$pid"
        fi
    done
}

stop() {
    if [ -f "$conf" ] && [ -f "$dir/run/slurmctld.pid" ]; then
        # Jobs first, so each slurmstepd ends its own processes; then the daemons.
        SLURM_CONF=$conf timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
        for _ in $(seq 50); do
            [ -z "$(SLURM_CONF=$conf timeout 5 squeue --noheader --states=RUNNING,COMPLETING 2>/dev/null || true)" ] && break
            sleep 0.2
        done
    fi
    local pids
    pids=$(cluster_pids | sort -u)
    [ -n "$pids" ] && kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 50); do
        pids=$(cluster_pids | sort -u)
        [ -z "$pids" ] && break
        sleep 0.1
    done
    if [ -n "$pids" ]; then
        say "still running after 5 s, killing: $(echo $pids)"
        kill -KILL $pids 2>/dev/null || true
        sleep 0.2
    fi
    rm -f "$dir"/run/*.pid
}

start() {
    if [ -n "$(cluster_pids)" ]; then
        say "a cluster is already running in $dir (stop it first)"
        exit 1
    fi
    for tool in munged slurmctld slurmd sinfo sbatch; do
        command -v "$tool" >/dev/null || PATH="$PATH:/usr/sbin" command -v "$tool" >/dev/null || {
            say "$tool not found: install Debian's slurm-wlm and munge (scripts/setup.sh does)"; exit 1; }
    done
    export PATH="$PATH:/usr/sbin"
    local user
    user=$(id -un)
    mkdir -p "$dir"/{munge,state,spool,log,run}
    # MUNGE refuses a key or socket folder that others may write to.
    chmod 700 "$dir/munge"
    if [ ! -f "$dir/munge/munge.key" ]; then
        head -c 1024 /dev/urandom > "$dir/munge/munge.key"
        chmod 600 "$dir/munge/munge.key"
    fi

    # The machine as slurmd sees it (CPUs, sockets, cores, threads, memory), so the node registers as valid.
    local hardware
    hardware=$(slurmd -C | head -n 1 | sed -E 's/^NodeName=[^ ]+ //')
    local controller_port node_port
    controller_port=$(free_port)
    node_port=$(free_port "$controller_port")

    cat > "$conf" <<EOF
# One-node cluster written by scripts/slurm-cluster.sh: everything in $dir.
ClusterName=workbench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
# cred_expire also sets how long a requeued job waits before it may start again (120 s by default).
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/slurmd-%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Small test jobs: look at pending jobs every second, so a requeued task starts as soon as it may.
SchedulerParameters=sched_interval=1,bf_interval=1
ReturnToService=2
MinJobAge=300
KillWait=5
InactiveLimit=0
SlurmdTimeout=60
NodeName=localhost NodeAddr=127.0.0.1 $hardware State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
    cat > "$dir/cgroup.conf" <<EOF
# Nothing here uses cgroups (proctrack/linuxproc, task/none); slurmd still reads this file.
CgroupPlugin=autodetect
IgnoreSystemd=yes
EOF
    echo "export SLURM_CONF=$conf" > "$dir/env"

    # Any failure from here on stops whatever did start.
    trap 'say "start failed; logs in $dir/log"; stop' ERR
    export WORKBENCH_SLURM_CLUSTER=$dir SLURM_CONF=$conf
    munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
        --force
    slurmctld -f "$conf" -i
    slurmd -f "$conf" -N localhost

    local state=""
    for _ in $(seq 150); do
        state=$(sinfo --noheader --nodes=localhost --format=%T 2>/dev/null || true)
        [ "$state" = "idle" ] && break
        sleep 0.2
    done
    if [ "$state" != "idle" ]; then
        say "the node is '${state:-not reported}' after 30 s, not idle; logs in $dir/log:"
        tail -n 5 "$dir"/log/*.log >&2 || true
        false
    fi
    trap - ERR
    say "node localhost idle ($hardware); for Slurm's commands:"
    echo "export SLURM_CONF=$conf"
}

case "$action" in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
