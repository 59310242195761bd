#!/usr/bin/env bash
# A GUI's session with the real bin/chuhe-engine, with 1 and 2 threads: random
# sequences of go ponder / ponderhit / stop / go infinite / a new position or
# ucinewgame in mid-search / go movetime / go searchmoves / MultiPV, at random short
# intervals. After each sequence the test sends isready and reads up to readyok: every
# go must have had exactly one bestmove by then, every answer must come within 10 s
# (no hang), and the engine must still run and quit cleanly (no crash). Under
# ThreadSanitizer (bin/tsan, make check-tsan) a race report fails the run too.
# Usage: tests/gui_session.sh <bindir> [sequences per thread count]
#   (default 80, about 10 s a thread count; 1000 for a long run by hand)
set -u
bindir="${1:-bin}"
count="${2:-80}"
engine="$bindir/chuhe-engine"
. "$(dirname "$0")/support/tap.sh"
. "$(dirname "$0")/support/engine.sh"
tap_require "$engine"
case "$bindir" in
*/tsan | */tsan/ | tsan) [ $# -ge 2 ] || count=30 ;;
esac

positions=("startpos" "startpos moves h2e2 h9g7" "startpos moves b2e2 b9c7 h0g2 h7h3"
    "fen r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"
    "fen 2bak4/4a4/4b4/9/9/9/9/9/4C4/3AK4 w - - 0 1")

# A random pause of 0-79 ms.
pause() { sleep "0.0$((RANDOM % 8))$((RANDOM % 10))"; }

# One sequence: its commands, then a wait for one bestmove per go ($gos), then isready
# and the wait for readyok; $log gets all that was read, $what names the sequence.
# False on a hang (no bestmove or readyok within 10 s).
sequence() {
    local pos=${positions[RANDOM % ${#positions[@]}]} clock=$((500 + RANDOM % 3000)) k
    gos=1 log=""
    engine_send "position $pos"
    case $((RANDOM % 9)) in
    0) what="go ponder, ponderhit, its move"
        engine_send "go ponder wtime $clock btime $clock winc 10 binc 10"
        pause
        engine_send ponderhit ;;
    1) what="go ponder, stop"
        engine_send "go ponder wtime $clock btime $clock"
        pause
        engine_send stop ;;
    2) what="go ponder, ponderhit at once, stop"
        engine_send "go ponder movetime 40" ponderhit
        pause
        engine_send stop ;;
    3) what="go infinite, a new position"
        engine_send "go infinite"
        pause
        engine_send "position startpos moves c3c4" ;;
    4) what="go ponder, ucinewgame"
        engine_send "go ponder wtime $clock btime $clock"
        pause
        engine_send ucinewgame ;;
    5) what="go movetime, isready while thinking"
        engine_send "go movetime $((5 + RANDOM % 40))" isready ;;
    6) what="MultiPV 3, go infinite, stop"
        engine_send "setoption name MultiPV value 3" "position startpos" "go infinite"
        pause
        engine_send stop "setoption name MultiPV value 1" ;;
    7) what="go searchmoves, go again at once"
        gos=2
        engine_send "position startpos" "go depth 30 searchmoves h2e2 b0c2" "go nodes 2000" ;;
    8) what="go wtime, then a ponderhit after the move"
        engine_send "go wtime 300 btime 300"
        engine_expect '^bestmove' 10000 || return 1
        log=$got
        gos=0
        engine_send ponderhit ;;
    esac
    for ((k = 0; k < gos; k++)); do
        engine_expect '^bestmove' 10000
        local rc=$?
        log+=$got
        [ $rc -eq 0 ] || return 1
    done
    [ "${what#go wtime}" != "$what" ] && gos=1
    engine_send isready
    engine_expect '^readyok' 10000
    rc=$?
    log+=$got
    return $rc
}

for threads in 1 2; do
    t0=$(now_ms)
    engine_start
    engine_send uci "setoption name Threads value $threads" "setoption name Ponder value true" isready
    engine_expect '^readyok' 20000
    bad="" done=0
    for ((i = 1; i <= count; i++)); do
        if ! sequence; then
            bad="sequence $i ($what): no answer within 10 s"
            break
        fi
        moves=$(grep -c '^bestmove' <<<"$log")
        if [ "$moves" -ne "$gos" ]; then
            bad="sequence $i ($what): $moves bestmove lines for $gos go"
            break
        fi
        if grep -q 'ThreadSanitizer\|AddressSanitizer\|runtime error' <<<"$log"; then
            bad="sequence $i ($what): a sanitizer report"
            break
        fi
        done=$i
    done
    alive=0
    kill -0 "$engine_pid" 2>/dev/null || alive=1
    engine_send quit
    rest=$(timeout 10 cat <&"$engine_out")
    wait "$engine_pid"
    rc=$?
    exec {engine_out}<&- {engine_in}>&-
    grep -q 'ThreadSanitizer\|AddressSanitizer\|runtime error' <<<"$rest" &&
        bad="${bad:-a sanitizer report at quit}"
    [ $alive -eq 0 ] || bad="${bad:-the engine died}"
    [ $rc -eq 0 ] || bad="${bad:-exit status $rc at quit}"
    echo "# $threads thread(s): $done sequences in $(($(now_ms) - t0)) ms"
    [ -z "$bad" ]
    check "$count GUI-style sequences with $threads thread(s): one bestmove per go, no hang, no crash" \
        $? "$bad"$'\n'"${log:-}$rest"
done
tap_end
