#!/usr/bin/env bash
# Matches end to end with external engines: chuhe (built-in) against Fairy-Stockfish
# (UCI, ranks 1-10) at fixed nodes on `mpirun -np 2` workers, with the cutechess-style
# command line, every game replayed by `verify`, the PGN written and the statistics the
# same after a restart; chuhe against Sjaak II (XBoard) on a clock; engines that crash,
# play an illegal move, hang or resign lose with the right reason under UCI and XBoard
# while the run completes; an SPRT stops a run early; an engine thinking longer than
# the heartbeat timeout does not get its worker declared silent.
# Prints TAP. Usage: tests/match_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
fsf=${CHUHE_FSF:-/usr/games/fairy-stockfish}
sjaak=${CHUHE_SJAAK:-/usr/games/sjaakii}
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "matches end to end" 29 "$coord" "$worker"
nodes=2000 small=300
[ "$san" = 1 ] && nodes=600 small=100

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

# 6-9: chuhe against Sjaak II over XBoard on a clock, with an option and the memory
# command; every game replays, and Sjaak neither crashed nor played an illegal move.
if [ -x "$sjaak" ]; then
    e2e_run sjaak -engine name=chuhe builtin \
        -engine name=sjaak cmd="$sjaak" proto=xboard option.memory=16 option.Level=Normal \
        -each tc=2+0.05 -games 4 -maxmoves 100 -pgnout "$tmp/sjaak.pgn"
    check "chuhe against Sjaak II (xboard): 4 games, coordinator and workers exit 0" \
        $((rc_c != 0 || rc_w != 0)) "$tmp/sjaak.err"
    "$coord" verify "$tmp/sjaak.h5" >"$tmp/sjaak.verify" 2>&1
    check "every move of the xboard match replays legally (verify)" \
        $(($? != 0 || $(grep -c '^games 4$' "$tmp/sjaak.verify") != 1)) "$tmp/sjaak.verify"
    check "-pgnout wrote 4 games, Sjaak Red in two ($(summary sjaak | grep -o "\"endings\":{[^}]*}"))" \
        $(($(grep -c '^\[Event ' "$tmp/sjaak.pgn") != 4 ||
            $(grep -c '^\[Red "sjaak"\]' "$tmp/sjaak.pgn") != 2)) "$tmp/sjaak.pgn"
    check "no crash and no illegal move by either engine ($(field sjaak time_losses))" \
        $(($(field sjaak crashes | grep -c '\[0,0\]') != 1 ||
            $(field sjaak illegal_moves | grep -c '\[0,0\]') != 1)) "$tmp/sjaak.out"
else
    for t in "chuhe against Sjaak II" "verify" "-pgnout" "no crash"; do
        skip "$t" "$sjaak is missing"
    done
fi

# 10-23: broken engines lose with the right reason and the runs complete, under UCI
# and XBoard (the same script speaks both).
for proto in uci xboard; do
    for e in crash illegal hang; do
        case $e in
        crash) reason=engine-crash key=crashes limit=(-each depth=2) ;;
        illegal) reason=illegal-move key=illegal_moves limit=(-each depth=2) ;;
        hang) reason=time-forfeit key=time_losses limit=(-each tc=0.3+0.05 timemargin=50) ;;
        esac
        # chuhe itself searches to depth 2 on every clock, so only the broken engine can
        # lose, however loaded the machine is; balanced openings of a fixed seed, as a
        # random line can leave a mate in one that chuhe plays before the fault shows
        e2e_run $e-$proto -engine builtin depth=2 -engine name=$e cmd="$test_engines/broken.sh" \
            args=$e proto=$proto "${limit[@]}" -games 4 --seed 1 --opening-max-score 200
        check "$proto: an engine that ${e}s loses every game by $reason; the run completes" \
            $((rc_c != 0 || rc_w != 0 ||
                $(summary $e-$proto | grep -c "\"endings\":{\"$reason\":4}") != 1)) \
            "$tmp/$e-$proto.out"
        check "... counted against player 1 ($(field $e-$proto $key))" \
            $(($(field $e-$proto $key | grep -c '\[0,4\]') != 1)) "$tmp/$e-$proto.out"
    done
done
e2e_run resign -engine builtin -engine name=resign cmd="$test_engines/resign.sh" proto=xboard \
    option.Mood=grim -each depth=2 -games 4
check "xboard: an engine that resigns (after a false claim) loses every game by resign" \
    $((rc_c != 0 || rc_w != 0 || $(summary resign | grep -c '"endings":{"resign":4}') != 1)) \
    "$tmp/resign.out"
check "... the losses are player 1's ($(field resign players))" \
    $(($(field resign players | grep -c '^"players":\[{"wins":4,"draws":0,"losses":0}') != 1)) \
    "$tmp/resign.out"

# 24-25: the SPRT stops a run early; every stored game is valid.
e2e_run sprt -engine builtin -engine name=illegal cmd="$test_engines/broken.sh" args=illegal \
    -each nodes=$small -games 400 -sprt elo0=0 elo1=100 alpha=0.1 beta=0.1 model=normalized
games=$(field sprt games | grep -o '[0-9]*')
check "-sprt stops the run with H1 accepted after $games of 400 games" \
    $((rc_c != 0 || rc_w != 0 || games >= 400 || $(summary sprt | grep -c '"state":"H1 accepted"') != 1)) \
    "$tmp/sprt.err"
"$coord" verify "$tmp/sprt.h5" >"$tmp/sprt.verify" 2>&1
check "the SPRT run's games verify" $? "$tmp/sprt.verify"

# 26-28: an engine that cannot start is a clear error, not a hang: a missing program,
# an XBoard engine that does not play xiangqi, an option the engine does not have.
stop_after_workers=1 e2e_run nostart -engine builtin -engine cmd=/nonexistent/engine -each nodes=$small -games 2 \
    --heartbeat-timeout 5 --drain-timeout 2
check "an engine that does not start fails the worker with a message" \
    $((rc_w == 0 || $(grep -c 'did not start' "$tmp/nostart.workers") == 0)) "$tmp/nostart.workers"
stop_after_workers=1 e2e_run chessonly -engine builtin -engine cmd="$test_engines/chessonly.sh" proto=xboard \
    -each depth=2 -games 2 --heartbeat-timeout 5 --drain-timeout 2
check "an xboard engine without variant xiangqi fails the worker with a message" \
    $((rc_w == 0 || $(grep -c 'did not start: no xiangqi' "$tmp/chessonly.workers") == 0)) \
    "$tmp/chessonly.workers"
"$coord" --bind 'tcp://127.0.0.1:*' --out "$tmp/xbnodes.h5" -engine builtin \
    -engine cmd="$test_engines/resign.sh" proto=xboard -each nodes=100 >"$tmp/xbnodes.out" 2>&1
rc=$?
stop_after_workers=1 e2e_run badoption -engine builtin -engine cmd="$test_engines/resign.sh" proto=xboard \
    option.Nope=1 -each depth=2 -games 2 --heartbeat-timeout 5 --drain-timeout 2
check "nodes= for an xboard engine is refused (exit $rc); an unknown xboard option fails to start" \
    $((rc == 0 || $(grep -c 'no exact node limit' "$tmp/xbnodes.out") != 1 || rc_w == 0 ||
        $(grep -c "has no option 'Nope'" "$tmp/badoption.workers") == 0)) \
    "$tmp/badoption.workers"

# 29: an engine that thinks longer than the heartbeat timeout: the worker keeps beating
# while it waits, so the coordinator never declares it silent.
delay=5
start=$SECONDS
e2e_run slow -engine builtin -engine name=slow cmd="$test_engines/slow.sh" args="$delay $(cd "$bindir" && pwd)/chuhe-engine" \
    -each depth=2 -games 2 -maxmoves 10 --heartbeat-timeout 2.5
took=$((SECONDS - start))
check "a ${delay} s think under a 2.5 s heartbeat timeout: no silent worker (${took} s)" \
    $((rc_c != 0 || rc_w != 0 || took < 2 * delay ||
        $(grep -c 'silent' "$tmp/slow.err") != 0)) "$tmp/slow.err"
e2e_end
