#!/usr/bin/env bash
# `chuhe-coordinator report` (docs/watch.md) on small runs played by `mpirun -np 2`
# workers: DIR/index.html with a PNG per figure and the same figures as text, numbers
# that agree with the run, and the output rules (files in DIR replaced only with --force,
# never the run file). A three-engine run gets a ranking instead of the match figure.
# Prints TAP. Usage: tests/report_e2e.sh BINDIR; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
e2e_begin report 11 "$coord" "$worker"
nodes=$(e2e_nodes 1000 300)

# sum FILE TITLE: the sum of the first value column of the figure TITLE in a text
# report (its rows: a label, then numbers; the note and the headings are not numbers)
sum() {
    awk -v t="$2" '$0 == t { on = 1; next } on && /^$/ { on = 0 }
        on && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }' "$1"
}
png_count() {
    local f n=0
    for f in "$1"/*.png; do
        [ "$(head -c 8 "$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && n=$((n + 1))
    done
    echo $n
}

e2e_run m --games 12 --nodes $nodes --max-plies 160 --sprt 'elo0=0 elo1=10'
check "a 12-game run to report on" $((rc_c != 0 || rc_w != 0)) "$tmp/m.err"

"$coord" report "$tmp/m.h5" --out "$tmp/rep" >"$tmp/rep.txt" 2>"$tmp/rep.err"
rc=$?
check "report RUN.h5 --out DIR: exit 0, DIR/index.html written" $((rc != 0)) "$tmp/rep.err"
[ -s "$tmp/rep/index.html" ]
check "DIR/index.html is there" $? "$tmp/rep.err"

if command -v gnuplot >/dev/null 2>&1; then
    pngs=$(png_count "$tmp/rep")
    ok=$((pngs < 5))
    for f in "$tmp"/rep/*.png; do
        grep -q "<img src=\"$(basename "$f")\"" "$tmp/rep/index.html" || ok=1
    done
    check "$pngs PNG plots (at least 5), each shown by index.html" $ok "$(ls -l "$tmp/rep")"
else
    skip "at least 5 PNG plots" "gnuplot is not installed (scripts/install-deps)"
fi

missing=
for title in "Game length" "Results by ending" "Search scores (the mover's view, centi-soldiers)" \
    "Score against result (the mover's mean result per score bucket)" "Positions by game phase" \
    "Games per worker rank" "Match: pentanomial counts"; do
    grep -qxF "$title" "$tmp/rep.txt" || missing="$missing [$title]"
    grep -qF "$title" "$tmp/rep/index.html" || missing="$missing [$title in index.html]"
done
check "every figure as text on stdout and in index.html" $((${#missing} != 0)) "missing:$missing"

positions=$(sed -n 's/^[0-9]* games, \([0-9]*\) positions.*/\1/p' "$tmp/rep.txt")
opening=$(sed -n 's/^  left out: \([0-9]*\) opening moves.*/\1/p' "$tmp/rep.txt")
by_length=$(sum "$tmp/rep.txt" "Game length") by_rank=$(sum "$tmp/rep.txt" "Games per worker rank")
by_ending=$(sum "$tmp/rep.txt" "Results by ending") by_phase=$(sum "$tmp/rep.txt" "Positions by game phase")
[ "$by_length" = 12 ] && [ "$by_rank" = 12 ] && [ "$by_ending" -gt 0 ] &&
    [ "$by_phase" = "$positions" ] && [ "${opening:-0}" -gt 0 ]
check "the figures add up: 12 games by length and by rank, $positions positions by phase" $? \
    "by length $by_length, by rank $by_rank, by ending $by_ending, by phase $by_phase of $positions, opening moves ${opening:-none}
$(head -n 60 "$tmp/rep.txt")"

pairs=$(sum "$tmp/rep.txt" "Match: pentanomial counts")
grep -q "^  .* against .*, 6 complete pairs: Elo " "$tmp/rep.txt" && [ "$pairs" = 6 ] &&
    grep -q '^  1 / (1 + exp(-K score)) fits these best at K = 0\.[0-9]*[1-9]' "$tmp/rep.txt"
check "the match's 6 pairs with Elo, and a fitted K" $? "$tmp/rep.txt"

# Outputs: an existing index.html needs --force; the run file is never written.
before=$(stat -c %Y.%s "$tmp/rep/index.html")
sleep 1
"$coord" report "$tmp/m.h5" --out "$tmp/rep" >/dev/null 2>"$tmp/again.err"
rc=$?
[ $rc != 0 ] && grep -q -- '--force' "$tmp/again.err" && [ "$(stat -c %Y.%s "$tmp/rep/index.html")" = "$before" ]
check "again into the same DIR: refused (status $rc), nothing replaced" $? "$tmp/again.err"
"$coord" report "$tmp/m.h5" --out "$tmp/rep" --force >/dev/null 2>"$tmp/force.err"
rc=$?
[ $rc = 0 ] && [ "$(stat -c %Y.%s "$tmp/rep/index.html")" != "$before" ]
check "with --force: replaced" $? "$tmp/force.err"

mkdir "$tmp/trap"
ln "$tmp/m.h5" "$tmp/trap/index.html"
sum_before=$(md5sum <"$tmp/m.h5")
"$coord" report "$tmp/m.h5" --out "$tmp/trap" --force >/dev/null 2>"$tmp/trap.err"
rc1=$?
"$coord" report "$tmp/m.h5" --out "$tmp/m.h5" --force >/dev/null 2>>"$tmp/trap.err"
rc2=$?
[ $rc1 != 0 ] && [ $rc2 != 0 ] && [ "$(md5sum <"$tmp/m.h5")" = "$sum_before" ] && verify "$tmp/m.h5"
check "never the run file, even with --force (status $rc1 and $rc2)" $? "$tmp/trap.err"

# Three engines: the ranking instead of the match figure.
e2e_run t -engine name=a builtin -engine name=b builtin -engine name=c builtin \
    -each nodes=$nodes -rounds 1 -maxmoves 80
"$coord" report "$tmp/t.h5" --out "$tmp/trep" >"$tmp/trep.txt" 2>"$tmp/trep.err"
rc=$?
[ $rc_c = 0 ] && [ $rc = 0 ] && grep -qxF "Ranking (Elo against the field)" "$tmp/trep.txt" &&
    [ "$(grep -c '^  [123]\. [abc] ' "$tmp/trep.txt")" = 3 ] && ! grep -q '^Match:' "$tmp/trep.txt"
check "a round robin of three engines: the ranking of a, b and c" $? \
    "$(cat "$tmp/t.err" "$tmp/trep.err" "$tmp/trep.txt" | tail -30)"
e2e_end
