#!/usr/bin/env bash
# scripts/slurm/chuhe.sbatch under a real Slurm controller: a single-node Slurm (munged,
# slurmctld, slurmd from Debian's packages) brought up in a scratch folder with its own
# configuration, ports, state and munge socket; a job run to its target and verified; a
# job cancelled with scancel mid-run, whose run file still verifies, then resumed by a
# second job to its target. The daemons it started are stopped by pid at exit.
# Skips with a reason where it cannot run (not root, Slurm or munge missing).
# Usage: tests/slurm_e2e.sh BINDIR
set -u
bindir=${1:?usage: tests/slurm_e2e.sh BINDIR}
source "$(dirname "$0")/support/e2e.sh"
bindir=$(cd "$bindir" && pwd)
coord=$bindir/chuhe-coordinator
worker=$bindir/chuhe-worker

skip_all() {
    echo "1..1"
    echo "ok 1 - slurm_e2e # SKIP $1"
    exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "not root (the test starts slurmctld, slurmd and munged)"
for p in slurmctld slurmd munged sbatch scontrol scancel sinfo; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
        skip_all "$p missing (apt-get install slurmctld slurmd slurm-client munge)"
done
id munge >/dev/null 2>&1 || skip_all "no munge user (the munge package is not set up)"
[ -r /etc/munge/munge.key ] || skip_all "no /etc/munge/munge.key"

e2e_begin slurm_e2e 9 "$coord" "$worker"
export PATH=$PATH:/usr/sbin
# Slurm's own folder, readable by the munge and slurm users (mktemp makes 0700)
sl=$tmp/slurm
mkdir -p "$sl/state" "$sl/spool" "$sl/log" "$sl/munge" "$sl/work" "$sl/tmpfs"
chmod 755 "$tmp" "$sl"
chown munge:munge "$sl/munge"
chmod 755 "$sl/munge"
host=$(hostname)
cpus=$(nproc)
# ports of our own, away from a system Slurm (6817/6818)
port_base=$((17000 + RANDOM % 2000 * 2))
export SLURM_CONF=$sl/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=chuhetest
SlurmctldHost=$host
SlurmctldPort=$port_base
SlurmdPort=$((port_base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sl/munge/munge.socket
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
TmpFS=$sl/tmpfs
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/log/slurmctld.log
SlurmdLogFile=$sl/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
KillWait=10
NodeName=$host CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 State=UNKNOWN
PartitionName=debug Default=YES Nodes=ALL MaxTime=INFINITE State=UP
CONF

e2e_on_exit() {
    local f pid
    for f in "$sl/slurmd.pid" "$sl/slurmctld.pid" "$sl/munge/munged.pid"; do
        pid=$(cat "$f" 2>/dev/null) || continue
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
    done
    sleep 1
    for f in "$sl/slurmd.pid" "$sl/slurmctld.pid" "$sl/munge/munged.pid"; do
        pid=$(cat "$f" 2>/dev/null) || continue
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    done
}

section "bring up munged, slurmctld, slurmd"
runuser -u munge -- munged --socket="$sl/munge/munge.socket" --pid-file="$sl/munge/munged.pid" \
    --log-file="$sl/munge/munged.log" --seed-file="$sl/munge/munged.seed" >"$tmp/munged.out" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
    munge -S "$sl/munge/munge.socket" -n | unmunge -S "$sl/munge/munge.socket" >/dev/null 2>&1
    rc=$?
fi
check "munged starts on the test's own socket and signs a credential" $rc "$tmp/munged.out"
if [ $rc -ne 0 ]; then
    e2e_end
    exit $?
fi

slurmctld -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 && slurmd -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1
rc=1
for _ in $(seq 150); do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
    case $state in idle*) rc=0; break ;; esac
    sleep 0.2
done
check "slurmctld and slurmd start; the node is idle (state '${state:-none}')" $rc \
    "$(tail -n 5 "$sl/log/slurmctld.log" "$sl/log/slurmd.log" 2>/dev/null)"
if [ $rc -ne 0 ]; then
    e2e_end
    exit $?
fi

# job_state JOBID: PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, ... ("" when unknown)
job_state() {
    scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1
}
# wait_job JOBID SECONDS: until the job has ended; sets jstate
wait_job() {
    local i
    for i in $(seq $(($2 * 5))); do
        jstate=$(job_state "$1")
        case $jstate in COMPLETED | CANCELLED | FAILED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 0 ;; esac
        sleep 0.2
    done
    return 1
}
# submit NAME VAR=VALUE...: sbatch from the work folder; sets job
submit() {
    local name=$1
    shift
    job=$(cd "$sl/work" && env "$@" CHUHE_BIN="$bindir" sbatch --parsable -n 2 \
        -J "$name" -o "$sl/work/$name-%j.log" "$root/scripts/slurm/chuhe.sbatch" 2>"$tmp/$name.sbatch.err")
    job=${job%%;*}
}
verify_games() { # FILE: the game count verify reports, or "" when verify fails
    "$coord" verify "$1" >"$tmp/verify.out" 2>&1 && sed -n 's/^games \([0-9]*\)$/\1/p' "$tmp/verify.out"
}

section "a job to its target"
submit full CHUHE_GAMES=8 CHUHE_NODES=300 CHUHE_OUT="$sl/work/full.h5"
rc=1
[ -n "$job" ] && wait_job "$job" 240 && [ "$jstate" = COMPLETED ] && rc=0
check "sbatch chuhe.sbatch -n 2: the job completes (job ${job:-none}, state ${jstate:-none})" $rc \
    "$(cat "$tmp/full.sbatch.err" "$sl/work"/full-*.log 2>/dev/null | tail -n 20)"
games=$(verify_games "$sl/work/full.h5")
[ "${games:-0}" -eq 8 ]
check "its run file verifies with the 8 games of its target (got ${games:-none})" $? "$tmp/verify.out"
grep -q '^chuhe: coordinator on tcp://.*:[0-9][0-9]*, run file' "$sl/work"/full-*.log 2>/dev/null
check "the job reports the port the coordinator picked" $? "$(cat "$sl/work"/full-*.log 2>/dev/null)"

section "scancel mid-run, then resume"
submit part CHUHE_GAMES=4000 CHUHE_NODES=2000 CHUHE_OUT="$sl/work/part.h5" \
    CHUHE_COORD_ARGS="--progress-interval 0.5"
# cancelled once its coordinator reports a few games stored (a progress line every
# 0.5 s in its log), far from the target; at most 3 minutes on a slow machine
stored() { # the last "games N" of the job's progress lines, 0 before the first
    local n
    n=$(sed -n 's/.*  games \([0-9][0-9]*\) .*/\1/p' "$sl/work/chuhe-$job.coordinator.log" 2>/dev/null | tail -n 1)
    echo "${n:-0}"
}
for _ in $(seq 900); do
    js=$(job_state "$job")
    [ "$js" = RUNNING ] && [ "$(stored)" -ge 6 ] && break
    case $js in COMPLETED | CANCELLED | FAILED) break ;; esac
    sleep 0.2
done
echo "# the job's coordinator reports $(stored) games stored; scancel"
scancel "$job"
wait_job "$job" 120
[ "$jstate" = CANCELLED ]
check "scancel ends the running job (state ${jstate:-none})" $? \
    "$(tail -n 20 "$sl/work"/part-*.log "$sl/work/chuhe-$job.coordinator.log" 2>/dev/null)"
mid=$(verify_games "$sl/work/part.h5")
[ -n "$mid" ] && [ "$mid" -gt 0 ] && [ "$mid" -lt 4000 ]
check "after scancel the run file verifies (${mid:-no} games stored of 4000)" $? \
    "$(cat "$tmp/verify.out"; tail -n 20 "$sl/work"/part-*.log "$sl/work/chuhe-$job.coordinator.log" 2>/dev/null)"

target=$(( (${mid:-0} + 11) / 2 * 2 ))
submit resume CHUHE_GAMES=$target CHUHE_NODES=300 CHUHE_OUT="$sl/work/part.h5"
rc=1
[ -n "$job" ] && wait_job "$job" 240 && [ "$jstate" = COMPLETED ] && rc=0
check "a second job on the same run file resumes it (job ${job:-none}, state ${jstate:-none})" $rc \
    "$(cat "$tmp/resume.sbatch.err" "$sl/work"/resume-*.log 2>/dev/null | tail -n 20)"
final=$(verify_games "$sl/work/part.h5")
[ -n "$final" ] && [ "$final" -ge "$target" ] && [ "$final" -le $((target + 2)) ]
check "the resumed run file verifies with its new target (${final:-no} games, target $target, ${mid:-0} before)" $? "$tmp/verify.out"

e2e_end
