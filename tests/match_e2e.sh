#!/usr/bin/env bash
# Matches end to end with external engines: chuhe (built-in) against Fairy-Stockfish
# (UCI, ranks 1-10) at fixed nodes on `mpirun -np 2` workers, with the cutechess-style
# command line, every game replayed by `verify`, the PGN written and the statistics the
# same after a restart; engines that crash, play an illegal move or hang lose with the
# right reason while the run completes; an SPRT stops a run early.
# Prints TAP. Usage: tests/match_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
coord=$bindir/chuhe-coordinator
worker=$bindir/chuhe-worker
engines=$(cd "$(dirname "$0")" && pwd)/engines
fsf=${CHUHE_FSF:-/usr/games/fairy-stockfish}
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "matches end to end" 14 "$coord" "$worker"
nodes=2000 small=300
[ -n "$san" ] && nodes=600 small=100

# 1-5: chuhe against Fairy-Stockfish, cutechess-style options.
if [ -x "$fsf" ]; then
    e2e_run fsf -engine name=chuhe builtin \
        -engine name=fsf cmd="$fsf" proto=uci1 option.Hash=4 option.Threads=1 \
        -each nodes=$nodes -games 4 -maxmoves 150 -pgnout "$tmp/fsf.pgn" -ratinginterval 2
    check "chuhe against Fairy-Stockfish: 4 games, coordinator and workers exit 0" \
        $((rc_c != 0 || rc_w != 0)) "$tmp/fsf.err"
    "$coord" verify "$tmp/fsf.h5" >"$tmp/fsf.verify" 2>&1
    check "every move of the match replays legally (verify)" \
        $(($? != 0 || $(grep -c '^games 4$' "$tmp/fsf.verify") != 1)) "$tmp/fsf.verify"
    games=$(grep -c '^\[Event ' "$tmp/fsf.pgn" 2>/dev/null)
    check "-pgnout wrote 4 games, each engine Red in two" \
        $((games != 4 || $(grep -c '^\[Red "fsf"\]' "$tmp/fsf.pgn") != 2 ||
            $(grep -c '^\[Black "fsf"\]' "$tmp/fsf.pgn") != 2)) "$tmp/fsf.pgn"
    penta=$(field fsf penta)
    sum=$(grep -o '[0-9]*' <<<"$penta" | awk '{ s += $1 } END { print s + 0 }')
    check "pentanomial counts of 2 pairs, Elo and LOS in the summary ($penta)" \
        $((sum != 2 || $(summary fsf | grep -c '"elo":.*"los":') != 1)) "$tmp/fsf.out"
    elo=$(field fsf elo)
    tables=$(summary fsf | sed -n 's/.*\("ranking":\)/\1/p')
    # a complete run: the coordinator rebuilds its statistics and ends without workers
    no_workers=1 e2e_run fsf
    check "restarted on the run file: the same statistics ($elo), ranking and pairing" \
        $((rc_c != 0 || $(field fsf penta | grep -cF "$penta") != 1 ||
            $(field fsf elo | grep -cF "$elo") != 1 || ${#tables} < 50 ||
            $(summary fsf | grep -cF "$tables") != 1)) "$tmp/fsf.out"
else
    for t in "chuhe against Fairy-Stockfish" "verify" "-pgnout" "pentanomial counts" "restart"; do
        skip "$t" "$fsf is missing"
    done
fi

# 6-11: broken engines lose with the right reason and the runs complete.
for e in crash illegal hang; do
    case $e in
    crash) reason=engine-crash key=crashes limit=(-each nodes=$small) ;;
    illegal) reason=illegal-move key=illegal_moves limit=(-each nodes=$small) ;;
    hang) reason=time-forfeit key=time_losses limit=(-each tc=0.3+0.05 timemargin=50) ;;
    esac
    e2e_run $e -engine builtin -engine name=$e cmd="$engines/$e.sh" "${limit[@]}" -games 4
    check "an engine that ${e}s loses every game by $reason; the run completes" \
        $((rc_c != 0 || rc_w != 0 || $(summary $e | grep -c "\"endings\":{\"$reason\":4}") != 1)) \
        "$tmp/$e.out"
    check "... counted against player 1 ($(field $e $key))" \
        $(($(field $e $key | grep -c '\[0,4\]') != 1)) "$tmp/$e.out"
done

# 12-13: the SPRT stops a run early; every stored game is valid.
e2e_run sprt -engine builtin -engine name=illegal cmd="$engines/illegal.sh" -each nodes=$small \
    -games 400 -sprt elo0=0 elo1=100 alpha=0.1 beta=0.1 model=normalized
games=$(field sprt games | grep -o '[0-9]*')
check "-sprt stops the run with H1 accepted after $games of 400 games" \
    $((rc_c != 0 || rc_w != 0 || games >= 400 || $(summary sprt | grep -c '"state":"H1 accepted"') != 1)) \
    "$tmp/sprt.err"
"$coord" verify "$tmp/sprt.h5" >"$tmp/sprt.verify" 2>&1
check "the SPRT run's games verify" $? "$tmp/sprt.verify"

# 14: an engine that cannot start is a clear error, not a hang.
stop_after_workers=1 e2e_run nostart -engine builtin -engine cmd=/nonexistent/engine -each nodes=$small -games 2 \
    --heartbeat-timeout 5 --drain-timeout 2
check "an engine that does not start fails the worker with a message" \
    $((rc_w == 0 || $(grep -c 'did not start' "$tmp/nostart.workers") == 0)) "$tmp/nostart.workers"
