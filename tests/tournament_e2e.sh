#!/usr/bin/env bash
# Tournaments end to end on `mpirun -np 2` workers: a round robin of three engines (the
# built-in engine with two weights files and bin/chuhe-engine as an external UCI engine)
# from a PGN book in seeded random order, with the crosstable, the ranking and the
# per-rank counts in the JSON, every game replayed by `verify`, the same statistics
# after a restart and the crosstable in the text report; a gauntlet, and one whose
# challengers share each round's opening (-openings policy=round); per-engine node
# limits stored in the run file and kept by the workers; and the runs that must not
# start (a bad book, an SPRT between three engines).
# Prints TAP. Usage: tests/tournament_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
uci=$(cd "$bindir" && pwd)/chuhe-engine
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "tournaments end to end" 20 "$coord" "$worker" "$uci"
nodes=300
[ "$san" = 1 ] && nodes=150

# The summary's tournament part: ranking, crosstable and pairings.
tables() { summary "$1" | sed 's/.*\("ranking":\)/\1/'; }

# The engines: chuhe, chuhe with weaker cannons, chuhe-engine over UCI.
"$uci" weights "$tmp/base.weights" >/dev/null
sed 's/^material\[cannon\] .*/material[cannon] 350 380/' "$tmp/base.weights" >"$tmp/cannon.weights"
# A PGN book in three notations; plies=4 keeps the first four plies of each game.
cat >"$tmp/book.pgn" <<'PGN'
[Event "central cannon"]
1. C2.5 H8+7 2. H2+3 R9.8 3. R1.2 *

[Event "algebraic"]
1. Nc3 Nc8 2. Bce3 Bge8 *

[Event "coordinates, Black to move"]
[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"]
1... h7e7 2. h0g2 h9g7 3. i0h0 *
PGN
engines=(-engine name=base builtin weights="$tmp/base.weights"
    -engine name=cannon builtin weights="$tmp/cannon.weights"
    -engine name=uci cmd="$uci" proto=uci)

# The round robin.
e2e_run rr "${engines[@]}" -each nodes=$nodes -rounds 2 -maxmoves 120 -pgnout "$tmp/rr.pgn" \
    -openings file="$tmp/book.pgn" format=pgn order=random seed=7 plies=4 -ratinginterval 4
check "round robin of 3 engines: 12 games, coordinator and workers exit 0" \
    $((rc_c != 0 || rc_w != 0 || $(field rr games | grep -c ':12$') != 1)) "$tmp/rr.err"
"$coord" verify "$tmp/rr.h5" >"$tmp/rr.verify" 2>&1
check "every game replays legally (verify)" \
    $(($? != 0 || $(grep -c '^games 12$' "$tmp/rr.verify") != 1)) "$tmp/rr.verify"
games=$(summary rr | grep -o '"games":\[\[[^}]*\]\]')
check "the crosstable: every two engines played two pairs ($games)" \
    $((${#games} == 0 || $(grep -cF '"games":[[0,4,4],[4,0,4],[4,4,0]]' <<<"$games") != 1)) "$tmp/rr.out"
ranking=$(summary rr | grep -o '"ranking":\[.*\],"crosstable"')
points=$(grep -o '"points":[0-9.]*' <<<"$ranking" | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
check "a ranking of the 3 engines, their points summing to the 12 games" \
    $(($(grep -o '"rank":' <<<"$ranking" | wc -l) != 3 || points != 12)) "$tmp/rr.out"
ok=0
for e in base cannon uci; do
    [ "$(grep -c "^\[Red \"$e\"\]" "$tmp/rr.pgn")" -eq 4 ] || ok=1
    [ "$(grep -c "^\[Black \"$e\"\]" "$tmp/rr.pgn")" -eq 4 ] || ok=1
done
check "-pgnout: each engine Red in 4 games and Black in 4" $ok "$tmp/rr.pgn"
check "the games start with the book's plies (-openings format=pgn plies=4)" \
    $(($(grep -c '{book}' "$tmp/rr.pgn") < 12)) "$tmp/rr.pgn"
ranks=$(field rr ranks)
rank_games=$(summary rr | grep -o '"ranks":\[[^]]*\]' | grep -o '"games":[0-9]*' | cut -d: -f2 |
    awk '{ s += $1 } END { print s + 0 }')
check "per-rank counts in the JSON: ranks 0 and 1 with their host, 12 games in all" \
    $(($(summary rr | grep -o '"ranks":\[[^]]*\]' | grep -c '"rank":0,"host":"[^"]*","games":[0-9]*,"crashes":0,"time_losses":0,"illegal_moves":0}.*"rank":1,') != 1 ||
        rank_games != 12)) "$tmp/rr.out"
check "the live progress line names the leader; the log has rating lines" \
    $(($(grep -c '| leader ' "$tmp/rr.err") == 0 || $(grep -c 'after 8 games: 1\. ' "$tmp/rr.err") != 1)) "$tmp/rr.err"
before=$(tables rr)
no_workers=1 e2e_run rr
after=$(tables rr)
check "restarted on the run file: the same ranking, crosstable and pairings" \
    $((rc_c != 0 || ${#before} < 100 || $([ "$before" = "$after" ] && echo 0 || echo 1))) \
    "before: $before | after: $after"

# Resumed with -rounds or -games alone (no -engine lines): the target counts the
# pairings of the run's three engines, as at its start.
for words in "-rounds 4:12" "-games 4:6"; do
    e2e_start_coord target --bind 'tcp://127.0.0.1:*' --out "$tmp/rr.h5" ${words%:*}
    wait_line "$tmp/target.out" '"pairs_target"' 10
    kill -TERM "$cpid" 2>/dev/null
    wait_for "$cpid" 10
    target=$(grep -o '"pairs_target":[0-9]*' "$tmp/target.out" | head -1)
    check "resumed with ${words%:*} alone: a target of ${words#*:} pairs of the 3 engines ($target)" \
        $(($([ "$target" = "\"pairs_target\":${words#*:}" ] && echo 0 || echo 1))) "$tmp/target.err"
done

# The same tournament played in two sessions: one round, then a restart to two rounds.
# Node-limited games are a function of their engines and opening, so the statistics
# must be those of the run in one go.
args=("${engines[@]}" -each nodes=$nodes -maxmoves 120 -openings file="$tmp/book.pgn" format=pgn
    order=random seed=7 plies=4)
e2e_run split "${args[@]}" -rounds 1
first=$rc_c$rc_w$(field split games)
e2e_run split "${args[@]}" -rounds 2
check "played in two sessions (6 games, then a restart to 12): the same statistics" \
    $(($([ "$first" = '00"games":6' ] && echo 0 || echo 1) || rc_c != 0 || rc_w != 0 ||
        $([ "$(tables split)" = "$before" ] && echo 0 || echo 1))) \
    "first session: $first | one go: $before | two sessions: $(tables split)"

# The text report of the same run.
text=1 no_workers=1 e2e_run rr
check "the text report has the ranking and the crosstable" \
    $((rc_c != 0 || $(grep -c '^ *crosstable ' "$tmp/rr.out") != 1 ||
        $(grep -cE '^ +[123]  (base|cannon|uci) ' "$tmp/rr.out") != 6 ||
        $(grep -c 'base vs cannon: Elo' "$tmp/rr.out") != 1)) "$tmp/rr.out"

# A gauntlet: engine 0 against each of the others.
e2e_run gauntlet "${engines[@]}" -tournament gauntlet -each nodes=$nodes -rounds 1 -maxmoves 120
check "gauntlet: base plays cannon and uci, they do not meet" \
    $((rc_c != 0 || rc_w != 0 ||
        $(summary gauntlet | grep -cF '"games":[[0,2,2],[2,0,0],[2,0,0]]') != 1)) "$tmp/gauntlet.out"

# The round policy: both pairings of a gauntlet round play the round's opening, so the
# two challengers compare opening by opening against the same opponent; under the
# default policy every pair has its own opening and there is nothing to pair.
tune=$bindir/chuhe-tune
e2e_run around "${engines[@]}" -tournament gauntlet -each nodes=$nodes -rounds 2 -maxmoves 120 \
    -openings file="$tmp/book.pgn" format=pgn plies=4 policy=round
"$tune" --match-report "$tmp/around.h5" --player cannon --baseline "$tmp/around.h5" \
    --baseline-player uci >"$tmp/around.cmp" 2>&1
rc_t=$?
"$tune" --match-report "$tmp/gauntlet.h5" --player cannon --baseline "$tmp/gauntlet.h5" \
    --baseline-player uci >"$tmp/apair.cmp" 2>&1
check "-openings policy=round: the challengers of a gauntlet share each round's opening (2 of 2)" \
    $((rc_c != 0 || rc_w != 0 || rc_t != 0 ||
        $(grep -c 'player 2: 2 openings with both games in both runs' "$tmp/around.cmp") != 1 ||
        $(grep -c 'no opening has both its games stored in both runs' "$tmp/apair.cmp") != 1)) \
    "$tmp/around.cmp"

# Per-engine node limits.
e2e_run odds -engine name=small builtin nodes=200 -engine name=big builtin nodes=1500 -games 4 \
    -maxmoves 80
config=$(h5dump -a /run_config "$tmp/odds.h5" 2>&1)
check "per-engine limits run and are stored in run_config (nodes_red 200, nodes_black 1500)" \
    $((rc_c != 0 || rc_w != 0 || $(grep -c '"nodes_red":200,' <<<"$config") != 1 ||
        $(grep -c '"nodes_black":1500,' <<<"$config") != 1)) "$config"
if /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null; then
    cat >"$tmp/nodes.py" <<'PY'
import sys
import h5py
import numpy as np

with h5py.File(sys.argv[1], "r") as f:
    g, p = f["games"][:], f["positions"][:]
    most = {0: 0, 1: 0}
    for game in g:
        rows = p[game["first_position"] : game["first_position"] + game["plies"]]
        for r in rows:
            if r["flags"] & 8:  # an opening move: not searched
                continue
            mover = game["red_player"] if r["ply"] % 2 == 0 else game["black_player"]
            most[int(mover)] = max(most[int(mover)], int(r["nodes"]))
    print(most[0], most[1])
PY
    read -r small big < <(/usr/bin/python3 "$tmp/nodes.py" "$tmp/odds.h5" 2>&1)
    check "each side searched under its own limit (most nodes a move: $small and $big)" \
        $((${small:-0} == 0 || small > 210 || ${big:-0} <= 210)) "$small $big"
else
    skip "each side searched under its own limit" "python3-h5py missing"
fi

# Runs that must not start.
printf '1. h2e2 h9g7 *\n\n1. h2e2 R9.9 *\n' >"$tmp/bad.pgn"
e2e_run badbook "${engines[@]}" -each nodes=$nodes -openings file="$tmp/bad.pgn"
check "a bad book stops the run with one line naming the file and game" \
    $((rc_c == 0 || $(grep -c "bad.pgn: game 2 (line 3): ply 2: 'R9.9'" "$tmp/badbook.err") != 1)) \
    "$tmp/badbook.err"
check "... and leaves no run file" $(($([ -e "$tmp/badbook.h5" ] && echo 1 || echo 0))) \
    "$tmp/badbook.h5 exists"
e2e_run sprt3 "${engines[@]}" -each nodes=$nodes -sprt elo0=0 elo1=5
check "an SPRT between three engines is refused" \
    $((rc_c == 0 || $(grep -c 'exactly two engines' "$tmp/sprt3.err") != 1 ||
        $([ -e "$tmp/sprt3.h5" ] && echo 1 || echo 0))) "$tmp/sprt3.err"
e2e_end
