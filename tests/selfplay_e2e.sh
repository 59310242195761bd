#!/usr/bin/env bash
# Self-play end to end: a real chuhe-coordinator on 127.0.0.1 and `mpirun -np 2`
# chuhe-worker ranks, then the run file checked by `chuhe-coordinator verify` (every
# stored game replayed: moves legal, results the rules' own, rows per game == plies),
# h5ls and the exports. Also: misbehaving clients (tests/tools/wire_client) rejected
# with a log line while the run goes on; a run extended by a restart with a higher
# --games; a worker rank killed with SIGKILL, its pair re-queued after the heartbeat
# timeout and the run finished by a fresh MPI job; the coordinator stopped with SIGTERM
# mid-run and restarted on the same endpoint, its live workers carrying on.
# Prints TAP. Usage: tests/selfplay_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "self-play end to end" 27 "$coord" "$worker" "$client"

# Nodes per move of the runs: small, and smaller still under the sanitizers (3-5x slower).
nodes_a=500 nodes_c=1500 nodes_d=1000
[ "$san" = 1 ] && nodes_a=200 nodes_c=600 nodes_d=400

# Starts a coordinator in the background: log-name, bind, args... Sets cpid and ep.
start_coord() { e2e_start_coord "$1" --bind "$2" --progress-interval 0.2 "${@:3}"; }

workers() { # log-name, endpoint, extra worker args...
    local name=$1 endpoint=$2
    shift 2
    timeout -k 5 90 mpirun --oversubscribe --bind-to none -np 2 ${mpi_env[@]+"${mpi_env[@]}"} \
        "$worker" --connect "$endpoint" --quiet "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}

# The run's "games" count in the last of a coordinator's JSON lines (the first "games"
# of the line: later ones count per rank and per engine).
games_of() { tail -1 "$tmp/$1.out" | grep -o '"games":[0-9]*' | head -1 | cut -d: -f2; }

settings=(--nodes "$nodes_a" --max-plies 150 --random-plies 6 --heartbeat-timeout 2 --drain-timeout 10)

# ---- A: a whole run, with misbehaving clients first ----
run=$tmp/a.h5
start_coord a 'tcp://127.0.0.1:*' --games 12 --out "$run" "${settings[@]}"
check "coordinator binds a free port on 127.0.0.1 and prints it" $? "$tmp/a.err"

"$client" "$ep" garbage >"$tmp/c1.txt" 2>&1
grep -q '^reply ERROR bad message: bad magic' "$tmp/c1.txt" &&
    grep -q 'rejected message from wire-client: bad magic' "$tmp/a.err"
check "a frame that is no message: ERROR reply and a log line naming the sender" $? "$tmp/c1.txt"

"$client" "$ep" version >"$tmp/c2.txt" 2>&1
grep -q '^reply ERROR bad message: protocol version 99' "$tmp/c2.txt"
check "a wrong protocol version: ERROR reply" $? "$tmp/c2.txt"

"$client" "$ep" illegal >"$tmp/c3.txt" 2>&1
grep -q '^reply ACK status 2$' "$tmp/c3.txt" &&
    grep -q 'rejected game 0 of pair [0-9]* from wire-client.*is illegal' "$tmp/a.err"
check "a game with an illegal move: ACK rejected, log line with sender and reason" $? \
    "$(cat "$tmp/c3.txt" "$tmp/a.err")"

workers aw "$ep"
wrc=$?
[ $wrc -eq 0 ] && grep -q '^chuhe-worker: 2 ranks, [0-9]* games.*0 ranks failed$' "$tmp/aw.out"
check "mpirun -np 2 workers finish on DONE with a summary on rank 0" $? \
    "$(cat "$tmp/aw.out" "$tmp/aw.err")"

wait_for "$cpid" 20
[ $rc -eq 0 ] && grep -q '"event":"summary","status":"complete"' "$tmp/a.out" && [ "$(games_of a)" = 12 ]
check "coordinator exits 0 with a complete JSON summary of 12 games" $? "$tmp/a.err"

grep -q 'wire-client silent for .*: pair [0-9]* back in the queue' "$tmp/a.err"
check "the silent client's pair went back into the queue" $? "$tmp/a.err"

verify_pairs "$run" 12 6 && grep -q '^verify .*: OK$' "$tmp/verify.txt"
check "verify: 12 games in 6 pairs, every move legal, results as the rules judge" $? \
    "$tmp/verify.txt"

positions=$(verify_count positions)
rows=$(h5ls "$run/positions" 2>/dev/null | sed -n 's/.*Dataset {\([0-9]*\)\/.*/\1/p')
[ -n "$positions" ] && [ "$positions" -gt 0 ] && [ "$rows" = "$positions" ] &&
    grep -q "\"positions\":$positions," "$tmp/a.out"
check "positions: h5ls rows == sum of plies == the coordinator's count ($positions)" $? \
    "rows=$rows positions=$positions"

blocks=$("$coord" export plain "$run" 2>/dev/null | grep -c '^e$')
events=$("$coord" export pgn "$run" 2>/dev/null | grep -c '^\[Event ')
[ "$blocks" = "$positions" ] && [ "$events" = 12 ]
check "export plain writes one block per position, export pgn one game each" $? \
    "blocks=$blocks events=$events"

if /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null; then
    awk '/^```python/{on=1; next} /^```/{if (on) exit} on' docs/runfile.md >"$tmp/example.py"
    py=$(/usr/bin/python3 "$tmp/example.py" "$run" 2>&1)
    first=$("$coord" export plain "$run" 2>/dev/null | sed -n '1s/^fen //p')
    grep -qF "$first" <<<"$py" && grep -q "positions: $positions" <<<"$py"
    check "the h5py example of docs/runfile.md loads the positions and decodes a FEN" $? "$py"
else
    skip "the h5py example of docs/runfile.md" "python3-h5py missing"
fi

section "a whole run with misbehaving clients"

# ---- B: a finished run extended by a restart with a higher target ----
run=$tmp/b.h5
start_coord b1 'tcp://127.0.0.1:*' --games 6 --out "$run" "${settings[@]}" &&
    workers bw1 "$ep"
wrc=$?
wait_for "$cpid" 20
[ $wrc -eq 0 ] && [ $rc -eq 0 ] && [ "$(games_of b1)" = 6 ]
check "a 6-game run completes" $? "$(cat "$tmp/b1.err" "$tmp/bw1.err")"

"$coord" --bind 'tcp://127.0.0.1:*' --games 10 --nodes 900 --out "$run" >"$tmp/b0.out" 2>&1
[ $? -ne 0 ] && grep -q -- "--nodes 900 differs from the run.s stored $nodes_a:" "$tmp/b0.out"
check "restarting with another --nodes is refused" $? "$tmp/b0.out"

start_coord b2 'tcp://127.0.0.1:*' --games 10 --out "$run" && workers bw2 "$ep"
wrc=$?
wait_for "$cpid" 20
grep -q 'resuming run .*: 6 games stored' "$tmp/b2.err" && [ $wrc -eq 0 ] && [ $rc -eq 0 ]
check "restarted with --games 10, it resumes from the file and completes" $? "$tmp/b2.err"

verify_pairs "$run" 10 5
check "resumed run: 10 games in 5 pairs, no duplicates" $? "$tmp/verify.txt"

section "a run extended by a restart"

# ---- C: a worker rank killed with SIGKILL ----
run=$tmp/c.h5
# games count once flushed (every 2 s): a run long enough to be killed in its middle on
# an idle machine too (16 games were all stored before the first count was seen)
start_coord c 'tcp://127.0.0.1:*' --games 48 --out "$run" --nodes "$nodes_c" --max-plies 150 \
    --random-plies 6 --heartbeat-timeout 2 --drain-timeout 10
cep=$ep
workers cw1 "$cep" &
mpid=$!
victim=
for i in $(seq 600); do
    g=$(games_of c)
    victim=$(sed -n 's/.*worker joined: rank 0\/2 on .* (pid \([0-9]*\)).*/\1/p' "$tmp/c.err" | head -1)
    [ -n "$victim" ] && [ "${g:-0}" -ge 1 ] && break
    sleep 0.1
done
[ -n "$victim" ] && kill -KILL "$victim"
wait_for "$mpid" 30
[ -n "$victim" ] && [ $rc -ne 0 ] && [ "$(games_of c)" -lt 48 ]
check "killing rank 0 (pid ${victim:-?}) with SIGKILL mid-run aborts the MPI job" $? \
    "$(cat "$tmp/cw1.err")"

for i in $(seq 100); do
    grep -q 'silent for .*: \(pair [0-9]*\|[0-9]* pairs\) back in the queue' "$tmp/c.err" && break
    sleep 0.1
done
grep -q 'rank [01]/2 on .* silent for .*: \(pair [0-9]*\|[0-9]* pairs\) back in the queue' "$tmp/c.err"
check "after the heartbeat timeout the dead ranks' pairs are re-queued" $? "$tmp/c.err"

workers cw2 "$cep"
wrc=$?
wait_for "$cpid" 20
[ $wrc -eq 0 ] && [ $rc -eq 0 ] && grep -q '"status":"complete"' "$tmp/c.out"
check "a fresh MPI job completes the run" $? "$(cat "$tmp/cw2.err" "$tmp/c.err")"

verify_pairs "$run" 48 24
check "after the kill: 48 games in 24 pairs, no duplicates, all valid" $? "$tmp/verify.txt"

section "a worker rank killed"

# ---- D: the coordinator stopped with SIGTERM and restarted under live workers ----
run=$tmp/d.h5
# long enough to be stopped in its middle once games show (at the flush, every 2 s):
# 16 games can all end within the first 2 s on an idle machine
start_coord d1 'tcp://127.0.0.1:*' --games 64 --out "$run" --nodes "$nodes_d" --max-plies 150 \
    --random-plies 6 --heartbeat-timeout 5
dep=$ep
workers dw "$dep" --timeout 30 &
mpid=$!
for i in $(seq 600); do
    [ "$(games_of d1)" -ge 2 ] 2>/dev/null && break
    sleep 0.1
done
kill -TERM "$cpid"
wait_for "$cpid" 20
[ $rc -eq 143 ] && grep -q '"event":"summary","status":"interrupted"' "$tmp/d1.out"
check "SIGTERM: the coordinator closes the file cleanly and exits 143" $? "$tmp/d1.err"

verify "$run"
stored=$(verify_count games)
[ "$(verify_count invalid)" = 0 ] && [ "${stored:-0}" -ge 2 ]
check "the interrupted run file opens and verifies (${stored:-?} games)" $? "$tmp/verify.txt"

start_coord d2 "$dep" --out "$run"
check "a restarted coordinator binds the same endpoint $dep" $? "$tmp/d2.err"

wait_for "$mpid" 60
wrc=$rc
wait_for "$cpid" 20
[ $wrc -eq 0 ] && [ $rc -eq 0 ] && grep -q '"status":"complete"' "$tmp/d2.out"
check "the running workers reconnect and finish the run" $? \
    "$(cat "$tmp/dw.err" "$tmp/d2.err")"

verify_pairs "$run" 64 32
check "after the restart: 64 games in 32 pairs, no duplicates, all valid" $? "$tmp/verify.txt"

section "the coordinator restarted under live workers"

# ---- the worker on its own ----
# a singleton MPI process (no mpirun) is one rank of one
timeout 30 "$worker" --connect tcp://127.0.0.1:9 --timeout 2 >"$tmp/e.out" 2>&1
[ $? -eq 1 ] && grep -q 'has not answered for 2 s' "$tmp/e.out" &&
    grep -q '^chuhe-worker: 1 ranks, 0 games.*1 ranks failed$' "$tmp/e.out"
check "a worker gives up on an unreachable coordinator after --timeout" $? "$tmp/e.out"

"$worker" --help >"$tmp/h.out" 2>&1 && grep -q -- '--connect' "$tmp/h.out" &&
    "$coord" --help >"$tmp/h2.out" 2>&1 && grep -q -- '--heartbeat-timeout' "$tmp/h2.out"
check "--help of both programs" $? "$(cat "$tmp/h.out" "$tmp/h2.out")"

"$coord" --bind 'tcp://127.0.0.1:*' --nosuch 1 >"$tmp/x.out" 2>&1
[ $? -eq 2 ] && grep -q "unknown option '--nosuch'" "$tmp/x.out"
check "an unknown coordinator option is an error" $? "$tmp/x.out"
section "the worker on its own, options"
e2e_end
