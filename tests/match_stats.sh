#!/usr/bin/env bash
# `chuhe-coordinator stats` on the public regression vectors of notes/statistics.md
# (fastchess's and fishtest's own test values). Prints TAP. Usage: tests/match_stats.sh <bindir>
set -u
coord=${1:-bin}/chuhe-coordinator
. "$(dirname "$0")/support/tap.sh"
tap_require "$coord"
cases=(
    "--penta 365,16618,36029,200,16974,390 -sprt elo0=0 elo1=2|LLR 2.25 (-2.94, 2.94) [0.00, 2.00] normalized"
    "--penta 127,4883,10311,401,5150,104 -sprt elo0=-1.75 elo1=0.25|LLR 3.01 (-2.94, 2.94) [-1.75, 0.25] normalized: H1 accepted"
    "--wdl 36433,68692,36027 -sprt elo0=0 elo1=2 model=normalized|LLR 0.92 (-2.94, 2.94) [0.00, 2.00] normalized"
    "--penta 34,54,31,32,64,75|Elo 55.58 +/- 27.65, nElo 57.94 +/- 28.28"
    "--penta 332,433,457,41,333,334|Elo -8.64 +/- 10.33"
    "--penta 332,433,457,41,333,334|LOS 5.05 %"
    "--penta 10789,19328,33806,19402,10543 -sprt elo0=-3 elo1=1 model=logistic|LLR 2.13 (-2.94, 2.94) [-3.00, 1.00] logistic"
)
tap_plan $((${#cases[@]} + 2))
for c in "${cases[@]}"; do
    args=${c%%|*} want=${c#*|}
    # shellcheck disable=SC2086
    out=$("$coord" stats $args 2>&1)
    grep -qF -- "$want" <<<"$out"
    check "stats $args" $? "want '$want'
$out"
done
! "$coord" stats --penta 1,2 >/dev/null 2>&1
check "bad counts refused" $? "stats --penta 1,2 was accepted"
! "$coord" stats --penta 1,2,3,4,5 -sprt elo0=1 >/dev/null 2>&1
check "SPRT without elo1 refused" $? "stats --penta 1,2,3,4,5 -sprt elo0=1 was accepted"
tap_end
