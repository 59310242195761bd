#!/usr/bin/env bash
# Faults end to end: the coordinator killed with SIGKILL in the middle of a self-play run
# under live `mpirun -np 2` workers, restarted on the same run file and endpoint; the run
# completes, and its --ack-log shows that every game the coordinator acknowledged is in
# the run file, once, and that every stored game was acknowledged (a game stored and
# flushed whose ACK the kill prevented is sent again by its worker and acknowledged as a
# duplicate). The checker of scripts/soak agrees, and fails on an ACK of a game the file
# does not hold. A coordinator restarted on a run that is already complete (here: with a
# lower --games) tells the reconnecting workers DONE, so that they end cleanly. An
# external engine that dies while it starts is started once more, not the end of its
# rank. An --ack-log that cannot be opened stops the coordinator at once.
# Prints TAP. Usage: tests/fault_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
soak=$root/scripts/soak

e2e_begin "faults end to end" 10 "$coord" "$worker"
nodes=600
[ "$san" = 1 ] && nodes=250

# Starts a coordinator in the background: log-name, bind, args... Sets cpid and ep.
start_coord() { e2e_start_coord "$1" --bind "$2" --progress-interval 0.5 "${@:3}"; }

# Starts workers in the background: log-name, endpoint, ranks, --timeout. Sets mpid.
workers_bg() {
    timeout -k 5 120 mpirun --oversubscribe --bind-to none -np "$3" ${mpi_env[@]+"${mpi_env[@]}"} \
        "$worker" --connect "$2" --quiet --timeout "$4" >"$tmp/$1.out" 2>"$tmp/$1.err" &
    mpid=$!
}

# Runs a command every 0.1 s until it succeeds, for at most 60 s.
poll_until() {
    local i
    for i in $(seq 600); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

# SIGKILLs the coordinator and reaps it, with the shell's "Killed" notice out of the log.
kill_coord() {
    exec 3>&2 2>/dev/null
    kill -KILL "$cpid"
    wait "$cpid"
    rc=$?
    exec 2>&3 3>&-
}

acks=$tmp/acks.jsonl
run=$tmp/run.h5
count() { grep -c "$1" "$acks" 2>/dev/null; }

# ---- the coordinator killed under live workers ----
# enough games for the kill to fall between two group commits (every 2 s)
total=60
start_coord k1 'tcp://127.0.0.1:*' --games $total --nodes "$nodes" --max-plies 150 --random-plies 6 \
    --heartbeat-timeout 5 --out "$run" --ack-log "$acks"
kep=$ep
workers_bg w "$kep" 2 30
stored_3() { [ "$(count '"status":"stored"')" -ge 3 ] 2>/dev/null; }
poll_until stored_3
kill_coord
killed_rc=$rc
before=$(count '"status":"stored"')
start_coord k2 "$kep" --out "$run" --ack-log "$acks"
[ "$killed_rc" -eq 137 ] && [ "${before:-0}" -ge 3 ] && grep -q 'resuming run' "$tmp/k2.err"
check "SIGKILL after $before acknowledged games; restarted on $kep, it resumes the run file" $? \
    "$(cat "$tmp/k1.err" "$tmp/k2.err")"

wait_for "$mpid" 90
wrc=$rc
wait_for "$cpid" 30
[ $wrc -eq 0 ] && [ $rc -eq 0 ] && grep -q '"status":"complete"' "$tmp/k2.out"
check "the live workers reconnect and the run completes" $? "$(cat "$tmp/w.err" "$tmp/k2.err")"

"$coord" verify "$run" >"$tmp/verify.txt" 2>&1
vrc=$?
games=$(sed -n 's/^games //p' "$tmp/verify.txt")
[ $vrc -eq 0 ] && [ "$games" = $total ] && grep -q '^duplicates 0$' "$tmp/verify.txt"
check "verify: $total games, no duplicates, every move legal" $? "$tmp/verify.txt"

# The ack log: two sessions, the killed one without its "close" line.
opens=$(count '"event":"open"')
closes=$(count '"event":"close"')
[ "$opens" = 2 ] && [ "$closes" = 1 ] &&
    tail -1 "$acks" | grep -q "\"event\":\"close\",\"games\":$total}" &&
    [ "$(sed -n 2p "$acks" | grep -c '"event":"ack","game_id":0,')" = 1 ]
check "--ack-log: an open line per session, a close line only for the clean end" $? "$acks"

# Every stored game (pair, game in pair) acknowledged, as stored or as a duplicate.
keys=$(grep '"event":"ack"' "$acks" | grep -v '"status":"rejected"' |
    sed 's/.*"pair_id":\([0-9]*\),"game_in_pair":\([01]\).*/\1.\2/' | sort -u | wc -l)
stored=$(count '"status":"stored"')
dups=$(count '"status":"duplicate"')
[ "$keys" = $total ] && [ "$stored" -le $total ] && [ "$stored" -ge "$before" ]
check "every one of the $total stored games was acknowledged ($stored stored, $dups duplicate ACKs)" \
    $? "$acks"

if /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null; then
    grep '"event":"summary"' "$tmp/k2.out" | tail -1 >"$tmp/final.json"
    "$soak" --check "$tmp" --bindir "$bindir" >"$tmp/soak.txt" 2>&1
    src=$?
    echo '{"event":"ack","game_id":99,"pair_id":99,"game_in_pair":0,"status":"stored","worker":"x"}' \
        >>"$acks"
    "$soak" --check "$tmp" --bindir "$bindir" >"$tmp/soak2.txt" 2>&1
    src2=$?
    [ $src -eq 0 ] && tail -1 "$tmp/soak.txt" | grep -q '^PASS$' && [ $src2 -eq 1 ] &&
        grep -q '^lost            1$' "$tmp/soak2.txt"
    check "scripts/soak --check passes the run, fails it with an ACK of a game not stored" $? \
        "$(cat "$tmp/soak.txt" "$tmp/soak2.txt")"
else
    skip "scripts/soak --check" "python3-h5py missing"
fi

# ---- restarted on a run that is already complete ----
run=$tmp/done.h5
start_coord d1 'tcp://127.0.0.1:*' --games 40 --nodes "$nodes" --max-plies 150 --random-plies 6 \
    --out "$run" --ack-log "$tmp/d.acks"
dep=$ep
workers_bg dw "$dep" 2 20
# a pair with both games acknowledged is durable: the restart finds the run complete
pair_acked() {
    sed -n 's/.*"pair_id":\([0-9]*\),.*"status":"stored".*/\1/p' "$tmp/d.acks" 2>/dev/null |
        sort | uniq -d | grep -q .
}
poll_until pair_acked
kill_coord
start_coord d2 "$dep" --out "$run" --games 2
wait_for "$cpid" 30
crc=$rc
[ $crc -eq 0 ] && grep -q '"status":"complete"' "$tmp/d2.out"
check "restarted with --games 2 on a run with a complete pair, it completes" $? "$tmp/d2.err"
grep -q 'resuming run .*: [1-9][0-9]* games stored' "$tmp/d2.err" || echo "# no complete pair stored"
wait_for "$mpid" 40
[ $rc -eq 0 ] && grep -q '^chuhe-worker: 2 ranks, .* 0 ranks failed$' "$tmp/dw.out"
check "... and the workers of the killed session reconnect, hear DONE and end cleanly" $? \
    "$(cat "$tmp/dw.out" "$tmp/dw.err" "$tmp/d2.err")"

# ---- an engine killed while it starts ----
engine=$(cd "$bindir" && pwd)/chuhe-engine
start_coord f 'tcp://127.0.0.1:*' --games 2 --out "$tmp/flaky.h5" --drain-timeout 5 \
    -engine builtin -engine name=flaky cmd="$test_engines/flaky-start.sh $tmp/flaky.state $engine" \
    -each nodes=$((nodes / 2))
timeout -k 5 60 mpirun --oversubscribe --bind-to none -np 1 ${mpi_env[@]+"${mpi_env[@]}"} \
    "$worker" --connect "$ep" --quiet --timeout 20 >"$tmp/fw.out" 2>"$tmp/fw.err"
wrc=$?
[ $wrc -ne 0 ] && kill -TERM "$cpid" 2>/dev/null # a rank that gave up never completes the run
wait_for "$cpid" 20
[ $wrc -eq 0 ] && [ $rc -eq 0 ] && grep -q 'did not start.*; starting it once more' "$tmp/fw.err"
check "an engine that dies while it starts is started again and the run completes" $? \
    "$(cat "$tmp/fw.err" "$tmp/f.err")"

# ---- an ack log that cannot be written ----
"$coord" --bind 'tcp://127.0.0.1:*' --games 2 --out "$tmp/x.h5" --ack-log "$tmp/no/such/dir/acks" \
    >"$tmp/x.out" 2>&1
[ $? -ne 0 ] && grep -q -- "--ack-log $tmp/no/such/dir/acks: the folder does not exist" "$tmp/x.out"
check "an --ack-log that cannot be opened: an error naming it, no serving" $? "$tmp/x.out"
e2e_end
