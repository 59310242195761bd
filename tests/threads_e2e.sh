#!/usr/bin/env bash
# Engines with several threads in tournaments, on `mpirun -np 2` workers: the built-in
# engine with option.Threads=2 against one thread, and bin/chuhe-engine as an external
# UCI engine with option.Threads=2, and pondering (-engine ... ponder) on a clock, play
# their games to the end and every game replays legally; a bad option.* of the built-in
# engine, and ponder for an xboard engine, are refused before the run starts.
# Prints TAP. Usage: tests/threads_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
uci=$(cd "$bindir" && pwd)/chuhe-engine
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "engines with threads in tournaments" 10 "$coord" "$worker" "$uci"
nodes=$(e2e_nodes 400 150)

e2e_run builtin -engine name=two builtin option.Threads=2 -engine name=one builtin \
    -each nodes=$nodes -games 4 -maxmoves 80
check "built-in engine, option.Threads=2 against 1: 4 games, coordinator and workers exit 0" \
    $((rc_c != 0 || rc_w != 0 || $(field builtin games | grep -c ':4$') != 1)) "$tmp/builtin.err"
verify_pairs "$tmp/builtin.h5" 4 2
check "the built-in engine's games replay legally (verify)" $? "$tmp/verify.txt"

e2e_run ext -engine name=ext2 cmd="$uci" option.Threads=2 -engine name=one builtin \
    -each nodes=$nodes -games 4 -maxmoves 80
check "chuhe-engine over UCI with option.Threads=2: 4 games, coordinator and workers exit 0" \
    $((rc_c != 0 || rc_w != 0 || $(field ext games | grep -c ':4$') != 1)) "$tmp/ext.err"
verify_pairs "$tmp/ext.h5" 4 2
check "the external engine's games replay legally (verify)" $? "$tmp/verify.txt"

# Pondering: chuhe-engine behind a tee that keeps what it is sent.
printf '#!/bin/sh\ntee -a "%s" | "%s"\n' "$tmp/teed.log" "$uci" >"$tmp/teed.sh"
chmod +x "$tmp/teed.sh"
e2e_run ponder -engine name=ponder cmd="$tmp/teed.sh" ponder option.Threads=2 \
    -engine name=one builtin -each tc=1+0.03 -games 4 -maxmoves 40
# (a 1 s clock on a loaded machine: an external engine, pondering or not, may lose a
# game on time here; the 40-game runs of docs/tournaments.md count such losses)
check "chuhe-engine pondering with 2 threads on a clock: 4 games, coordinator and workers exit 0" \
    $((rc_c != 0 || rc_w != 0 || $(field ponder games | grep -c ':4$') != 1)) "$tmp/ponder.err"
verify_pairs "$tmp/ponder.h5" 4 2
check "the pondering engine's games replay legally (verify)" $? "$tmp/verify.txt"
hits=$(grep -c '^ponderhit$' "$tmp/teed.log")
stops=$(grep -c '^stop$' "$tmp/teed.log")
check "it was sent Ponder, go ponder, ponderhit ($hits) and stop ($stops)" \
    $(($(grep -c '^setoption name Ponder value true$' "$tmp/teed.log") < 1 ||
        $(grep -c '^go ponder wtime' "$tmp/teed.log") < 10 || hits < 1 || stops < 1)) "$tmp/teed.log"

# Refused before any game: each as one line naming the option.
bad() {
    "$coord" --bind 'tcp://127.0.0.1:*' --out "$tmp/bad.h5" -engine builtin "$1" \
        -engine builtin -each nodes=100 -games 2 >"$tmp/bad.out" 2>"$tmp/bad.err"
    local rc=$?
    [ $rc -ne 0 ] && [ ! -e "$tmp/bad.h5" ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] &&
        grep -q "$2" "$tmp/bad.err"
}
bad option.Threads=0 "option.Threads: '0' is out of range (allowed: 1..256)"
check "built-in option.Threads=0: refused, naming the option and the range" $? "$tmp/bad.err"
bad option.Hash=64 "option.Hash: the built-in engine takes option.Threads=N only"
check "built-in option.Hash: refused, naming the one option it takes" $? "$tmp/bad.err"
"$coord" --bind 'tcp://127.0.0.1:*' --out "$tmp/bad.h5" -engine cmd="$uci" proto=xboard ponder \
    -engine builtin -each st=0.1 -games 2 >"$tmp/bad.out" 2>"$tmp/bad.err"
check "ponder for an xboard engine: refused" \
    $(($? == 0 || $(grep -c 'ponders with uci, uci1 and ucci engines only' "$tmp/bad.err") != 1)) \
    "$tmp/bad.err"
e2e_end
