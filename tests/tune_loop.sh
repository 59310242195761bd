#!/usr/bin/env bash
# scripts/tune-loop end to end, small: self-play on 2 ranks stores distinct games, the
# tuner runs on them, the match of tuned against starting weights stops as soon as its
# SPRT decides (bounds far from the truth, so a few pairs settle it), and the report
# gives the Elo before and after; with Fairy-Stockfish installed, a short gauntlet of
# both weights against it is reported too.
# Prints TAP. Usage: tests/tune_loop.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the directory.
set -u
bindir=${1:-bin}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/support/tap.sh"
tap_require "$bindir/chuhe-coordinator" "$bindir/chuhe-worker" "$bindir/chuhe-tune" \
    "$bindir/chuhe-engine"
command -v mpirun >/dev/null 2>&1 || tap_skip_all "the tuning loop" "mpirun is not installed"
case $bindir in san | */san | */san/) tap_skip_all "the tuning loop" "minutes under the sanitizers" ;; esac
tap_plan 5
tmp=$(mktemp -d)
trap '[ -n "${CHUHE_TEST_KEEP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"' EXIT
fsf=/usr/games/fairy-stockfish
gauntlet=()
[ -x "$fsf" ] && gauntlet=(--gauntlet 2 --gauntlet-tc 2+0.05)

timeout -k 5 300 "$root/scripts/tune-loop" --bindir "$bindir" --out "$tmp/loop" -n 2 \
    --games 16 --nodes 300 --random-plies 6 --match-games 200 --sprt elo0=-200,elo1=-100,alpha=0.2,beta=0.2 \
    --tune "--epochs 4 --skip-plies 4" ${gauntlet[@]+"${gauntlet[@]}"} >"$tmp/out.txt" 2>&1
check "scripts/tune-loop finishes a small round" $? "$tmp/out.txt"

"$bindir/chuhe-coordinator" verify "$tmp/loop/selfplay.h5" >"$tmp/verify.txt" 2>&1
grep -q '^games 16$' "$tmp/verify.txt" && grep -q '^repeated 0$' "$tmp/verify.txt"
check "self-play: 16 games, none repeating another" $? "$tmp/verify.txt"

# the coordinator's decision (its log); the games in flight at that moment are stored
# too (games count once flushed, every 2 s: on an idle machine 60 games take 3.5 s, so
# the bound is 200 games), so the report's LLR over every game may fall back below the bound
g=$(sed -n 's/^Games \([0-9]*\):.*/\1/p' "$tmp/loop/match.txt")
[ -n "$g" ] && [ "$g" -lt 200 ] && grep -q '^[-0-9: ]*SPRT: .*H1 accepted' "$tmp/loop/match.log"
check "the match stops once its SPRT accepts H1 (${g:-?} of at most 200 games)" $? \
    "$tmp/loop/match.log"

grep -q '^Elo *before: the starting weights' "$tmp/loop/report.txt" &&
    grep -qE '^ *after: +the tuned weights -?[0-9.]+ \+/- [0-9.]+ over them' "$tmp/loop/report.txt"
check "the report gives the Elo before and after" $? "$tmp/loop/report.txt"

if [ ${#gauntlet[@]} -gt 0 ]; then
    grep -qE '^ *before: the starting weights .* in 2 games' "$tmp/loop/report.txt" &&
        grep -qE '^ *after: +the tuned weights .* in 2 games' "$tmp/loop/report.txt" &&
        grep -qE '^ *tuned - start on the same openings: [-+][0-9.]+ points' "$tmp/loop/report.txt"
    check "the gauntlet against Fairy-Stockfish is reported for both weights, paired by opening" $? \
        "$tmp/loop/report.txt"
else
    skip "the gauntlet against Fairy-Stockfish" "$fsf is not installed"
fi
tap_end
