#!/usr/bin/env bash
# One writer per run file with HDF5's file lock off (HDF5_USE_FILE_LOCKING=FALSE, as
# Lustre and some NFS mounts need): a second coordinator on a run file that another
# serves is refused with one line naming the first (program, pid, host), and so is
# `verify`; the lock file goes with a clean stop; after a SIGKILL the next coordinator
# takes the stale lock over and says so.
# Prints TAP. Usage: tests/runlock_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "run file lock end to end" 5 "$coord"
export HDF5_USE_FILE_LOCKING=FALSE
run=$tmp/run.h5
args=(--bind 'tcp://127.0.0.1:*' --out "$run" --games 2 --nodes 100)

e2e_start_coord first "${args[@]}"
first=$cpid
timeout 20 "$coord" "${args[@]}" </dev/null >"$tmp/second.out" 2>"$tmp/second.err"
rc=$?
want="in use by chuhe-coordinator (pid $first on host $(hostname), since "
check "a second coordinator on the run file is refused, naming the first (pid $first)" \
    $((rc == 0 || $(grep -cF -- "$want" "$tmp/second.err") != 1 ||
        $(grep -c 'resuming run' "$tmp/second.err") != 0)) "$tmp/second.err"
"$coord" verify "$run" >"$tmp/verify.out" 2>&1
rc=$?
check "verify while it runs: refused, naming the writer" \
    $((rc == 0 || $(grep -cF "being written by chuhe-coordinator (pid $first " "$tmp/verify.out") != 1)) \
    "$tmp/verify.out"
kill -TERM "$first"
wait_for "$first" 20
check "a clean stop removes the lock file" \
    $((rc != 143 || $([ -e "$run.lock" ] && echo 1 || echo 0))) "$tmp/first.err"

e2e_start_coord killed "${args[@]}"
killed=$cpid
kill -KILL "$killed"
wait_for "$killed" 10
e2e_start_coord next "${args[@]}"
next=$cpid
check "after a SIGKILL the lock file stays, and the next coordinator takes it over, saying so" \
    $(($(grep -cF "run.h5.lock: took over the lock of chuhe-coordinator (pid $killed on host " \
        "$tmp/next.err") != 1 || $(grep -c 'resuming run' "$tmp/next.err") != 1)) "$tmp/next.err"
held=$(grep -c "^pid=$next\$" "$run.lock" 2>/dev/null)
check "... and holds it: its pid is in the lock file" $((${held:-0} != 1)) "$(cat "$run.lock" 2>&1)"
kill -TERM "$next"
wait_for "$next" 20
e2e_end
