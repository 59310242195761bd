#!/usr/bin/env bash
# Searching through the real bin/chuhe-engine: go with every kind of limit, stop and
# isready while thinking, the search options, eval, weights, bench, the UCCI dialect,
# mates and positions without a legal move. The engine runs as a coprocess so that
# commands can be timed and answered while a search runs. Prints TAP lines.
# Usage: tests/uci_search.sh <bindir>   (bindir ending in /san: smaller searches)
set -u
bindir="${1:-bin}"
engine="$bindir/chuhe-engine"
. "$(dirname "$0")/support/tap.sh"
. "$(dirname "$0")/support/engine.sh"
tap_require "$engine"

depth=5 nodes=20000 bench=6
case "$bindir" in
*/san | */san/ | san) nodes=5000 bench=4 ;;
esac

# Whether the moves of $2 can be played in order from position command $1.
legal_line() {
    local out
    out=$(engine_run "$1 moves $2\nd\n")
    ! grep -q '^info string error' <<<"$out"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- go depth: the info lines and a legal best move ------------------------------------
engine_start
engine_send uci ucinewgame "position startpos" "go depth $depth"
engine_expect '^bestmove ' 60000
ok=$?
out=$got
last=$(grep '^info depth' <<<"$out" | grep -v 'bound ' | tail -1)
best=$(grep -oE '^bestmove [a-i][0-9][a-i][0-9]' <<<"$out" | cut -d' ' -f2)
pv=$(sed -n 's/.* pv \(.*\)$/\1/p' <<<"$last")
fields=0
for f in "depth $depth " 'seldepth [0-9]+ ' 'score (cp|mate) -?[0-9]+ ' 'nodes [0-9]+ ' 'nps [0-9]+ ' \
    'time [0-9]+' 'hashfull [0-9]+ ' ' pv [a-i][0-9][a-i][0-9]'; do
    grep -qE "$f" <<<"$last" || fields=1
done
[ $ok -eq 0 ] && [ $fields -eq 0 ] && [ -n "$best" ] && [ "${pv%% *}" = "$best" ] &&
    legal_line "position startpos" "$pv"
check "go depth $depth: info with depth seldepth score nodes nps time hashfull pv, legal PV and bestmove" $? "$out"

# ---- go nodes: reproducible after ucinewgame -------------------------------------------
signature() { # bestmove and the nodes of the last info line
    echo "$(grep '^bestmove' <<<"$1") $(grep '^info depth' <<<"$1" | tail -1 | grep -oE 'nodes [0-9]+')"
}
fen="r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"
engine_send ucinewgame "position fen $fen" "go nodes $nodes"
engine_expect '^bestmove ' 60000
a=$(signature "$got")
engine_send ucinewgame "position fen $fen" "go nodes $nodes"
engine_expect '^bestmove ' 60000
b=$(signature "$got")
[ -n "$a" ] && [ "$a" = "$b" ] && grep -qE '^bestmove [a-i][0-9][a-i][0-9]' <<<"$a"
check "go nodes $nodes twice after ucinewgame: same bestmove, same nodes" $? "$a / $b"
engine_stop

# ---- stop and isready while thinking ---------------------------------------------------
engine_start
engine_send uci "position startpos" "go infinite"
sleep 0.3
engine_send isready
engine_expect '^(readyok|bestmove)' 2000
ready=$?
first=$got
t0=$(now_ms)
engine_send stop
engine_expect '^bestmove ' 2000
ok=$?
dt=$(($(now_ms) - t0))
[ $ready -eq 0 ] && grep -q '^readyok' <<<"$first" && ! grep -q '^bestmove' <<<"$first"
check "isready during go infinite: readyok before any bestmove" $? "$first"
[ $ok -eq 0 ] && grep -qE '^bestmove [a-i][0-9][a-i][0-9]' <<<"$got"
check "go infinite then stop: bestmove within 2 s (${dt} ms)" $? "$got"

# stop right after go, many times: the stop must never be lost
lost=0
for i in $(seq 20); do
    engine_send "go infinite" stop
    engine_expect '^bestmove ' 2000 || {
        lost=$i
        engine_send stop
        engine_expect '^bestmove ' 5000
        break
    }
done
check "go infinite with stop right after it, 20 times: every search ends" "$lost" "search $lost never ended"
if [ "$lost" -ne 0 ]; then # a lost stop leaves the engine waiting forever: start afresh
    engine_stop
    engine_start
fi

t0=$(now_ms)
engine_send "go movetime 300"
engine_expect '^bestmove [a-i][0-9]' 3000
check "go movetime 300 returns a move ($(($(now_ms) - t0)) ms)" $? "$got"
# a search stopped in the middle of an iteration reports once more: its last info line
# names the move played
last=$(grep '^info depth' <<<"$got" | tail -1)
[ "$(grep -oE ' pv [a-i][0-9][a-i][0-9]' <<<"$last" | cut -c5-)" = \
    "$(grep -oE '^bestmove [a-i][0-9][a-i][0-9]' <<<"$got" | cut -c10-)" ]
check "go movetime 300: the last info line's PV starts with the best move" $? "$got"

t0=$(now_ms)
engine_send ucinewgame "position startpos moves h2e2 h9g7" "go wtime 1000 btime 1000 winc 10 binc 10"
engine_expect '^bestmove [a-i][0-9]' 1000
check "go wtime 1000 btime 1000 winc 10 binc 10: bestmove within 1 s ($(($(now_ms) - t0)) ms)" $? "$got"
engine_stop

# ---- options ---------------------------------------------------------------------------
evalfen="position fen $fen"
out=$(engine_run "$evalfen\neval\n")
eval_before=$(grep -vE '^info string' <<<"$out")
grep -qE '^material +-?[0-9]' <<<"$out" && grep -qE '^psqt_horse +-?[0-9]' <<<"$out" &&
    tail -1 <<<"$out" | grep -qE 'total.*-?[0-9]' &&
    [ "$(grep -cE '^[a-z_]+ +-?[0-9]+ +-?[0-9]+' <<<"$out")" -ge 10 ]
check "eval: a line per term (material, psqt_horse, ...) and a total line" $? "$out"

out=$(engine_run "setoption name Hash value 32\nsetoption name Clear Hash\nisready\n")
! grep -q '^info string error' <<<"$out" && grep -q '^readyok' <<<"$out"
check "setoption Hash 32 and Clear Hash: no error" $? "$out"

out=$(engine_run "setoption name Hash value 0\nisready\nposition startpos\ngo perft 1\n")
engine_carried_on 1 "$out" &&
    grep -q '^Nodes searched: 44$' <<<"$out"
check "setoption Hash 0: one error line, the engine carries on" $? "$out"

out=$(engine_run "setoption name Nonsense value 1\nisready\n")
engine_carried_on 1 "$out"
check "setoption of an unknown option: one error line" $? "$out"

out=$(engine_run "setoption name EvalFile value /nonexistent/chuhe.weights\n$evalfen\neval\n")
after=$(grep -vE '^info string' <<<"$out")
[ "$(engine_errors "$out")" = 1 ] && [ "$after" = "$eval_before" ]
check "setoption EvalFile /nonexistent: one error line, eval unchanged" $? "$out"

w="$tmp/written.weights"
out=$(engine_run "weights $w\nsetoption name EvalFile value $w\n$evalfen\neval\n")
# the handcrafted terms as before; the built-in network dropped for the weights
after=$(grep -vE '^(info string|NNUE:|search uses)' <<<"$out")
[ -s "$w" ] && ! grep -q '^info string error' <<<"$out" &&
    [ "$after" = "$(grep -vE '^(NNUE:|search uses)' <<<"$eval_before")" ] &&
    grep -q '^NNUE: no network (a weights file was loaded)' <<<"$out" &&
    grep -q '^material\[chariot\] ' "$w"
check "weights <file> writes weights that EvalFile loads back unchanged" $? "$out"

# a link to the engine's own standard output (as /dev/stdout is): written through, at
# once, and the link stays a link (no file renamed over it, no read of the pipe first)
ln -s /proc/self/fd/1 "$tmp/stdout-link"
out=$(printf 'weights %s\nquit\n' "$tmp/stdout-link" | timeout 10 "$engine")
grep -q '^material\[chariot\] ' <<<"$out" && [ -L "$tmp/stdout-link" ]
check "weights to a link to its standard output (/dev/stdout): the weights on stdout" $? "$(head -c 300 <<<"$out")"

# ---- bench -----------------------------------------------------------------------------
b1=$(timeout 120 "$engine" bench $bench 2>&1)
b2=$(timeout 120 "$engine" bench $bench 2>&1)
n1=$(sed -n 's/^Nodes searched: \([0-9][0-9]*\)$/\1/p' <<<"$b1")
n2=$(sed -n 's/^Nodes searched: \([0-9][0-9]*\)$/\1/p' <<<"$b2")
[ -n "$n1" ] && [ "$n1" -gt 0 ] && [ "$n1" = "$n2" ] && grep -qE '^Nodes/second: [0-9]+$' <<<"$b1"
check "bench $bench: Nodes searched and Nodes/second, the same count twice ($n1)" $? "$b1"

# ---- mates and positions without a move ------------------------------------------------
engine_start
engine_send uci "position fen 3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1" "go depth $depth"
engine_expect '^bestmove ' 30000
ok=$?
best=$(grep -oE '^bestmove [a-i][0-9][a-i][0-9]' <<<"$got" | cut -d' ' -f2)
[ $ok -eq 0 ] && grep -qE '^info depth .*score mate 1 ' <<<"$got" && [ -n "$best" ]
check "a mate in 1 is reported as 'score mate 1'" $? "$got"

engine_send "position fen 3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1 moves i0i8" "go depth $depth"
engine_expect '^bestmove' 30000
grep -q '^bestmove (none)$' <<<"$got"
check "UCI, no legal move (stalemate): bestmove (none)" $? "$got"

engine_send "position fen 3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1 moves a0d0" "go infinite"
engine_expect '^bestmove' 5000
grep -q '^bestmove (none)$' <<<"$got"
check "UCI, checkmated, go infinite: bestmove (none) at once" $? "$got"
engine_stop

# ---- UCCI ------------------------------------------------------------------------------
engine_start
engine_send ucci
engine_expect '^ucciok$' 5000
check "ucci: ucciok" $? "$got"
engine_send "setoption hashsize 32" "position startpos moves h2e2" "go depth $depth"
engine_expect '^(bestmove|nobestmove)' 60000
ok=$?
grep -q '^info string error' <<<"$got"
err=$?
[ $ok -eq 0 ] && [ $err -ne 0 ] && grep -qE '^bestmove [a-i][0-9][a-i][0-9]' <<<"$got" &&
    grep -qE '^info depth [0-9]+ score -?[0-9]+ ' <<<"$got"
check "UCCI: setoption hashsize 32, go depth $depth: info depth/score and bestmove" $? "$got"

t0=$(now_ms)
engine_send "go time 2 increment 0 opptime 2"
engine_expect '^bestmove [a-i][0-9]' 2000
check "UCCI: go time 2 (seconds) answers within 2 s ($(($(now_ms) - t0)) ms)" $? "$got"

engine_send "position fen 3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1" "go depth $depth"
engine_expect '^bestmove' 30000
score=$(grep -E '^info depth' <<<"$got" | tail -1 | sed -n 's/.* score \(-\{0,1\}[0-9]*\) .*/\1/p')
[ -n "$score" ] && [ "$score" -gt 20000 ]
check "UCCI: a mate in 1 gets a mate score ($score)" $? "$got"

engine_send "position fen 3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1 moves i0i8" "go depth $depth"
engine_expect '^(bestmove|nobestmove)' 30000
grep -q '^nobestmove$' <<<"$got"
check "UCCI, no legal move: nobestmove" $? "$got"

engine_send quit
engine_expect '^bye$' 5000
check "UCCI: quit answers bye" $? "$got"
engine_stop

# scripts/bench-multipv: a line per bench position with both searches' moves and scores,
# then the count; a bad option is one line and status 2
out=$("$(dirname "$0")/../scripts/bench-multipv" --depth 3 "$bindir" 2>&1)
[ "$(grep -cE '^position +[0-9]+  MultiPV 1: [a-i][0-9][a-i][0-9] (cp|mate)-?[0-9]+ +MultiPV 3: [a-i][0-9][a-i][0-9] ' <<<"$out")" = 16 ] &&
    grep -qE '^depth 3: MultiPV 3.s first move is MultiPV 1.s in [0-9]+ of 16 positions$' <<<"$out"
check "scripts/bench-multipv: both moves on the 16 bench positions, and the count" $? "$out"
out=$("$(dirname "$0")/../scripts/bench-multipv" --multipv 1 "$bindir" 2>&1)
[ $? = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q -- '--multipv must be 2-9' <<<"$out"
check "scripts/bench-multipv --multipv 1: one line, status 2" $? "$out"

tap_end
