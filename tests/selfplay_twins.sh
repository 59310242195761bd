#!/usr/bin/env bash
# Self-play of two equal players stores distinct games: a coordinator and `mpirun -np 2`
# workers play a short self-play run, and every game differs from every other (verify's
# and the summary's "repeated" count 0), while a replay of the run gives the same games
# (the node counts come from seeded streams). A match of two players that differ only by
# name (two copies of one weights file) keeps its colour-swapped pairs: the second game
# of each pair repeats the first, and both counts say so.
# Prints TAP. Usage: tests/selfplay_twins.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
engine=$bindir/chuhe-engine
e2e_begin "self-play of equal players" 6 "$coord" "$worker" "$engine"

# games RUN: one line per game (its moves; a game starts at ply 0), sorted: the games
# whatever the order the workers delivered them in.
games() {
    "$coord" export plain "$1" 2>/dev/null |
        awk '/^move / { m = $2 } /^ply / { if ($2 == 0 && line != "") { print line; line = "" }
                                          line = line " " m }
             END { if (line != "") print line }' | sort
}

nodes=400
[ "$san" = 1 ] && nodes=150
settings=(--nodes "$nodes" --max-plies 120 --random-plies 6 --seed 3)

e2e_run twins --games 16 "${settings[@]}"
verify "$tmp/twins.h5"
[ $rc_c -eq 0 ] && [ $rc_w -eq 0 ] && [ "$(verify_count games)" = 16 ] &&
    [ "$(verify_count full_pairs)" = 8 ] && [ "$(verify_count invalid)" = 0 ]
check "self-play: 16 games in 8 pairs, all valid" $? "$(cat "$tmp/verify.txt" "$tmp/twins.err")"

[ "$(verify_count repeated)" = 0 ]
check "verify: no game repeats another's moves (repeated 0)" $? "$tmp/verify.txt"

[ "$(field twins repeated)" = '"repeated":0' ]
check "the coordinator's summary counts 0 repeated games" $? "$(summary twins)"

e2e_run again --games 16 "${settings[@]}"
games "$tmp/twins.h5" >"$tmp/twins.txt"
games "$tmp/again.h5" >"$tmp/again.txt"
[ "$(wc -l <"$tmp/twins.txt")" = 16 ] && cmp -s "$tmp/twins.txt" "$tmp/again.txt"
check "the same run again plays the same games" $? "$(diff "$tmp/twins.txt" "$tmp/again.txt" | head)"

"$engine" weights "$tmp/a.weights" >/dev/null
cp "$tmp/a.weights" "$tmp/b.weights"
e2e_run match --games 8 "${settings[@]}" --weights-red "$tmp/a.weights" \
    --weights-black "$tmp/b.weights"
verify "$tmp/match.h5"
[ $rc_c -eq 0 ] && [ "$(verify_count games)" = 8 ] && [ "$(verify_count repeated)" = 4 ]
check "a match of two names for one weights file keeps its pairs: repeated 4 of 8" $? \
    "$(cat "$tmp/verify.txt" "$tmp/match.err")"

[ "$(field match repeated)" = '"repeated":4' ]
check "the summary of that match counts 4 repeated games" $? "$(summary match)"

e2e_end
