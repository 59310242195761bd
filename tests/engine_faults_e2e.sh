#!/usr/bin/env bash
# External engines that misbehave beyond losing a game: one that starts a long-lived
# process of its own (nothing of it survives the run, mpirun exits, and the engine
# inherits no descriptor of the worker's), one that sends a 10 MB line without a
# newline (the worker says so), and one that plays an illegal move (the worker logs the
# move and the position, and the PGN says who played it).
# Prints TAP. Usage: tests/engine_faults_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "misbehaving engines" 6 "$coord" "$worker" "$bindir/chuhe-engine"
engine=$(cd "$bindir" && pwd)/chuhe-engine

# the sleeps the forking engine started that are still running (pids from its notes,
# each checked to be that sleep still)
sleeping() {
    local pid
    for pid in $(sed -n 's/^child //p' "$tmp/notes" 2>/dev/null); do
        [ "$(tr -d '\0' 2>/dev/null <"/proc/$pid/cmdline")" = sleep300 ] && echo "$pid"
    done
}
e2e_on_exit() {
    local pid
    for pid in $(sleeping); do kill -KILL "$pid"; done
}

# 1-3: an engine that starts a process of its own
start=$SECONDS
worker_timeout=60 e2e_run fork -engine builtin -engine name=fork \
    cmd="$test_engines/forking.sh" args="$tmp/notes $engine" -each depth=2 -games 2 -maxmoves 20
took=$((SECONDS - start))
check "an engine with a child process: the run completes and mpirun exits (${took} s)" \
    $((rc_c != 0 || rc_w != 0)) "$tmp/fork.workers"
alive=$(sleeping)
check "no process the engine started outlives it (children: $(grep -c '^child' "$tmp/notes" 2>/dev/null); alive: ${alive:-none})" \
    $(($(grep -c '^child' "$tmp/notes" 2>/dev/null) == 0 || ${#alive} > 0)) "$tmp/notes"
# the engine's descriptors: 0, 1 and 2, and the script shell's own copy of the script
extra=$(awk '$1 == "fd" && $2 > 2 && $3 != "script"' "$tmp/notes" 2>/dev/null)
check "the engine holds stdin, stdout and stderr, no descriptor of the worker" \
    $(($(grep -c '^fd 1 pipe:' "$tmp/notes") == 0 || ${#extra} > 0)) "${extra:-$tmp/notes}"

# 4: a 10 MB line without a newline
stop_after_workers=1 e2e_run longline -engine builtin -engine name=long cmd="$test_engines/broken.sh" \
    args=longline -each depth=2 -games 2 --heartbeat-timeout 5 --drain-timeout 2
check "a 10 MB line without newline: the worker says the engine sent a line too long" \
    $(($(grep -c "did not start: the engine sent a line longer than 16383 bytes" "$tmp/longline.workers") == 0)) \
    "$tmp/longline.workers"

# 5-6: an illegal move, in the worker's log and the PGN
e2e_run illegal -engine builtin -engine name=illegal cmd="$test_engines/broken.sh" args=illegal \
    -each depth=2 -games 2 --seed 1 --opening-max-score 200 -pgnout "$tmp/illegal.pgn"
fen='[1-9rnbakcpRNBAKCP/]* [wb] - - [0-9]* [0-9]*'
check "the worker's log names the engine, its illegal move and the position ($(grep -c 'illegal move' "$tmp/illegal.workers") lines)" \
    $((rc_c != 0 || rc_w != 0 ||
        $(grep -c "broken.sh illegal, \(Red\|Black\)) played the illegal move 'a0a0' in $fen and loses" \
            "$tmp/illegal.workers") != 2)) "$tmp/illegal.workers"
check "the PGN says who played the illegal move, and Termination says illegal-move" \
    $(($(tr '\n' ' ' <"$tmp/illegal.pgn" |
        grep -o '{Red played an illegal move} 0-1\|{Black played an illegal move} 1-0' | wc -l) != 2 ||
        $(grep -c '^\[Termination "illegal-move"\]' "$tmp/illegal.pgn") != 2)) "$tmp/illegal.pgn"
e2e_end
