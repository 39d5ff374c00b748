#!/usr/bin/env bash
# A one-node Slurm cluster in one folder, for the tests and for trying `workbench slurm` on one machine.
#
# Usage: scripts/setup/slurm-cluster.sh start DIR [--until-exit PID]
#            configure and start munged, slurmctld and slurmd; wait until the node is idle; print the line that
#            points Slurm's commands at it. With --until-exit, a watcher stops the cluster once process PID has
#            ended, so a test run that crashes still leaves nothing running.
#        scripts/setup/slurm-cluster.sh stop DIR
#            cancel every job, stop every daemon (and the watcher), leave nothing running
#
# Everything lives in DIR: its own MUNGE key, slurm.conf and cgroup.conf, state, logs and pid files, and free ports
# on 127.0.0.1, so it never touches (or collides with) a system Slurm or MUNGE. The sockets (MUNGE's, slurmd's
# spool) go in a short folder /tmp/wbslurm.XXXXXX named in DIR/sockets, since a Unix socket path is limited to
# 108 bytes and DIR may be deep. Clients find
# it through SLURM_CONF=DIR/slurm.conf (DIR/env holds the export line). The daemons run as the current user
# (SlurmUser), which must be root for slurmd to start jobs the usual way; CI runs as root.
#
# No cgroups: processes are tracked through /proc (proctrack/linuxproc) and tasks are not bound (task/none), so it
# runs in containers and VMs whose cgroup tree Slurm cannot manage. Needs Debian's slurm-wlm and munge.
set -euo pipefail

say() { printf 'slurm-cluster: %s\n' "$*" >&2; }
usage() { say "usage: scripts/setup/slurm-cluster.sh start DIR [--until-exit PID] | stop DIR"; exit 2; }

[ $# -ge 2 ] || usage
action=$1
owner=""
if [ "$action" = start ] && [ $# -eq 4 ] && [ "$3" = --until-exit ]; then
    owner=$4
    case "$owner" in ''|*[!0-9]*) usage ;; esac
elif [ $# -ne 2 ]; then
    usage
fi
if [ "$action" = stop ] && [ ! -d "$2" ]; then
    exit 0  # nothing was started there
fi
mkdir -p "$2"
dir=$(cd "$2" && pwd -P)
conf="$dir/slurm.conf"
script=$(cd "$(dirname "$0")" && pwd -P)/$(basename "$0")

# A free TCP port on 127.0.0.1, other than the ones given: the kernel picks it (bind to port 0).
free_port() {
    local port
    while :; do
        port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        case " $* " in *" $port "*) ;; *) echo "$port"; return ;; esac
    done
}

# Processes that belong to this cluster: the daemons (their pid files), and anything started with this cluster's
# marker in its environment (the watcher, and the daemons' children: slurmstepd and the jobs it runs). Only the
# daemons and the watcher are given the marker, never this script's own shell, whose subshells would match.
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
        # A job's own processes carry the submitter's environment: this cluster's SLURM_CONF and a job id.
        elif grep -qzxF "SLURM_CONF=$conf" "/proc/$pid/environ" 2>/dev/null \
             && grep -qz "^SLURM_JOB_ID=" "/proc/$pid/environ" 2>/dev/null; then
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
    if [ -f "$dir/sockets" ]; then
        local sockets
        sockets=$(cat "$dir/sockets")
        case "$sockets" in /tmp/wbslurm.*) rm -rf "$sockets" ;; esac
        rm -f "$dir/sockets"
    fi
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
    mkdir -p "$dir"/{munge,state,log,run}
    # MUNGE refuses a key or socket folder that others may write to (mktemp makes it 0700).
    chmod 700 "$dir/munge"
    local sockets
    if [ -f "$dir/sockets" ]; then  # left by a start that never saw its stop
        sockets=$(cat "$dir/sockets")
        case "$sockets" in /tmp/wbslurm.*) rm -rf "$sockets" ;; esac
    fi
    sockets=$(mktemp -d /tmp/wbslurm.XXXXXX)
    echo "$sockets" > "$dir/sockets"
    mkdir -p "$sockets/spool"
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
# One-node cluster written by scripts/setup/slurm-cluster.sh: everything in $dir.
ClusterName=workbench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
# cred_expire also sets how long a requeued job waits before it may start again (120 s by default).
AuthInfo=socket=$sockets/munge.socket,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$sockets/spool
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

    # The daemons must not inherit the caller's other descriptors: a caller that waits for the end of a pipe or
    # socket it gave this script (Foundation's Process does) would otherwise wait as long as the cluster runs.
    local descriptor
    for descriptor in /proc/$$/fd/*; do
        descriptor=${descriptor##*/}
        case "$descriptor" in 0|1|2|255) ;; *) eval "exec $descriptor>&-" 2>/dev/null || true ;; esac
    done

    # Any failure from here on stops whatever did start.
    trap 'say "start failed; logs in $dir/log"; stop' ERR
    export SLURM_CONF=$conf
    local marker="WORKBENCH_SLURM_CLUSTER=$dir"
    env "$marker" munged --socket="$sockets/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
        --force
    env "$marker" slurmctld -f "$conf" -i
    env "$marker" slurmd -f "$conf" -N localhost
    if [ -n "$owner" ]; then
        # Its own session, so it outlives the owner's process group; the stop it runs drops the marker first.
        setsid env "$marker" bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done
                                      exec env -u WORKBENCH_SLURM_CLUSTER "$2" stop "$3"' \
            watcher "$owner" "$script" "$dir" </dev/null >/dev/null 2>&1 &
    fi

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
