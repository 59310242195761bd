#!/usr/bin/env bash
# scripts/strength end to end, small: chuhe plays as an external UCI engine with the
# same move overhead as Fairy-Stockfish (what it is sent is recorded by a wrapper around
# bin/chuhe-engine), every clock of --tc gets its own match and table row, the
# in-process player is the other setup, a complete match is resumed rather than played
# again, and a mistyped option stops the script before any game with one line naming it.
# Prints TAP lines. Usage: tests/strength_e2e.sh <bindir>
set -u
bindir=$(cd "${1:-bin}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
fsf=${CHUHE_FSF:-/usr/games/fairy-stockfish}
sjaak=${CHUHE_SJAAK:-/usr/games/sjaakii}
. "$root/tests/support/tap.sh"
tap_require "$bindir/chuhe-engine" "$bindir/chuhe-coordinator" "$bindir/chuhe-worker"
[ -x "$fsf" ] && [ -x "$sjaak" ] || tap_skip_all "scripts/strength" "$fsf or $sjaak is missing"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

# A bin folder whose chuhe-engine records every line it is sent.
mkdir "$tmp/bin"
ln -s "$bindir/chuhe-coordinator" "$bindir/chuhe-worker" "$tmp/bin/"
cat >"$tmp/bin/chuhe-engine" <<EOF
#!/usr/bin/env bash
tee -a "$tmp/sent.txt" | exec "$bindir/chuhe-engine" "\$@"
EOF
chmod +x "$tmp/bin/chuhe-engine"
cp "$root/engine/default.weights" "$tmp/my.weights"

strength() {
    timeout -k 5 300 "$root/scripts/strength" --bindir "$tmp/bin" --games 2 --ranks 1 "$@" \
        >"$tmp/out.txt" 2>&1
}
rows() { grep -c "^| $1" "$2" 2>/dev/null; }

# 1-4: against Fairy-Stockfish, chuhe over UCI.
strength --opponents fsf --tc 1+0.01 --weights "$tmp/my.weights" --out "$tmp/a"
check "a 2-game match against Fairy-Stockfish finishes" $? "$tmp/out.txt"
grep -q '^setoption name Move Overhead value 100$' "$tmp/sent.txt" &&
    grep -q "^setoption name EvalFile value $tmp/my.weights\$" "$tmp/sent.txt" &&
    grep -q '^go wtime' "$tmp/sent.txt"
check "chuhe is bin/chuhe-engine over UCI with a 100 ms overhead and the given weights" $? \
    "$tmp/sent.txt"
s=$tmp/a/summary.md
[ "$(rows Fairy "$s")" = 1 ] && grep -q '^| Fairy.* | 1+0.01 | chuhe over UCI, overhead 100 ms | 2 | [0-9]*-[0-9]*-[0-9]* | [0-9.]* % | .* | [0-9]* / [0-9]* |$' "$s"
check "the summary has the match's row: clock, setup, games, W-D-L, score, Elo, time losses" \
    $? "$s"
"$bindir/chuhe-coordinator" verify "$tmp/a/fsf-1+0.01-uci.h5" >"$tmp/verify.txt" 2>&1 &&
    grep -q '^games 2$' "$tmp/verify.txt" &&
    [ "$(grep -c '^\[Event ' "$tmp/a/fsf-1+0.01-uci.pgn")" = 2 ]
check "the run file's 2 games replay (verify) and the PGN holds them" $? "$tmp/verify.txt"

# 5-6: two clocks against Sjaak II, chuhe in-process; the same command again resumes.
: >"$tmp/sent.txt"
strength --opponents sjaak --tc 1+0.01,2+0.02 --chuhe builtin --overhead 50 --out "$tmp/b"
s=$tmp/b/summary.md
[ $? = 0 ] && [ "$(rows Sjaak "$s")" = 2 ] && grep -q '| 1+0.01 | chuhe in-process' "$s" &&
    grep -q '| 2+0.02 | chuhe in-process' "$s" && [ ! -s "$tmp/sent.txt" ]
check "--tc 1+0.01,2+0.02 --chuhe builtin: one match and row per clock, no chuhe-engine" $? \
    "$tmp/out.txt"
strength --opponents sjaak --tc 1+0.01 --chuhe builtin --out "$tmp/b" &&
    "$bindir/chuhe-coordinator" verify "$tmp/b/sjaak-1+0.01-builtin.h5" >"$tmp/verify.txt" 2>&1 &&
    grep -q '^games 2$' "$tmp/verify.txt" && [ "$(rows Sjaak "$s")" = 3 ]
check "run again, the complete match is resumed: still 2 games, its row added" $? "$tmp/out.txt"

# 7-14: mistyped options: exit status 2, one line naming the option, no game, no folder.
bad() {
    local opt=$1
    shift
    strength --out "$tmp/bad" "$@"
    local rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/out.txt")" = 1 ] && grep -q -- "^strength: .*$opt" "$tmp/out.txt" &&
        [ ! -e "$tmp/bad" ]
    check "$* is refused before any game: $(head -1 "$tmp/out.txt")" $? "$tmp/out.txt"
}
bad --tc --tc 10
bad --tc --tc 10+0.1,fast
bad --chuhe --chuhe xboard
bad --overhead --overhead -5
bad --opponents --opponents fsf,stockfish
bad --weights --weights "$tmp/none.weights"
bad --games --games 0
bad --frobnicate --frobnicate
tap_end
