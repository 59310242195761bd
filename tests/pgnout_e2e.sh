#!/usr/bin/env bash
# -pgnout under a kill: a coordinator SIGKILLed in the middle of a match has appended
# every game it stored to the PGN (each flush is followed by the PGN, before the ACKs),
# and the restarted coordinator completes the PGN: as many games as the run file, none
# twice; an incomplete game at the PGN's end (a write cut short) is cut off and written
# again.
# Prints TAP. Usage: tests/pgnout_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "-pgnout under a kill" 4 "$coord" "$worker"
nodes=$(e2e_nodes 300 100)
args=(-engine name=a builtin -engine name=b builtin -each nodes=$nodes -games 40 -maxmoves 60
    -pgnout "$tmp/m.pgn")
pgn_games() { grep -c '^\[Event ' "$tmp/m.pgn" 2>/dev/null; }
pgn_rounds() { grep '^\[Round ' "$tmp/m.pgn" | sort | uniq -d | wc -l; }

# a match killed once 10 games are acknowledged (so flushed to the run file)
e2e_start_coord m --bind 'tcp://127.0.0.1:*' --out "$tmp/m.h5" --ack-log "$tmp/acks.log" "${args[@]}"
timeout -k 5 120 mpirun --oversubscribe --bind-to none "${mpi_env[@]}" -np 2 "$worker" \
    --connect "$ep" --quiet >"$tmp/m1.workers" 2>&1 &
mpid=$!
for _ in $(seq 600); do
    acked=$(grep -c '"status":"stored"' "$tmp/acks.log" 2>/dev/null)
    [ "${acked:-0}" -ge 10 ] && break
    sleep 0.1
done
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
kill -TERM "$mpid" 2>/dev/null
wait_for "$mpid" 20
cp "$tmp/m.err" "$tmp/m1.err"
verify "$tmp/m.h5"
in_file=$(verify_count games)
in_pgn=$(pgn_games)
check "killed after $acked acknowledged games: the PGN holds the run file's $in_file games ($in_pgn)" \
    $((in_file < 10 || in_pgn != in_file)) "$(cat "$tmp/verify.txt" "$tmp/m1.err")"

# an incomplete game at the end, as a write cut short by a kill leaves it
head -c $(($(stat -c %s "$tmp/m.pgn") - 40)) "$tmp/m.pgn" >"$tmp/cut.pgn"
cat "$tmp/cut.pgn" >"$tmp/m.pgn"
e2e_run m "${args[@]}"
check "restarted: the run completes" $((rc_c != 0 || rc_w != 0)) "$tmp/m.err"
verify "$tmp/m.h5"
in_file=$(verify_count games)
in_pgn=$(pgn_games)
check "the PGN holds as many games as the run file ($in_pgn, $in_file), none twice" \
    $((in_file != 40 || in_pgn != in_file || $(pgn_rounds) != 0)) "$tmp/m.err"
"$coord" export pgn "$tmp/m.h5" >"$tmp/export.pgn" 2>"$tmp/export.err"
cmp -s "$tmp/export.pgn" "$tmp/m.pgn"
check "the PGN equals 'export pgn' of the run file (the cut game written again)" $? \
    "$(grep -i pgnout "$tmp/m.err"; diff "$tmp/export.pgn" "$tmp/m.pgn" | head -20)"
e2e_end
