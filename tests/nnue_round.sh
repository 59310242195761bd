#!/usr/bin/env bash
# scripts/nnue-round end to end, small: datagen of 8 games at 300 nodes on 2 ranks, a
# network of H = 32 trained 2 epochs under mpirun, a match of 6 games at 300 nodes of it
# against the default evaluation, and the report with each section and its commands; a
# resumed round runs no finished step again and runs the one left; --games 0 trains on
# --data alone; a mistyped command exits with status 2 and one line, creating nothing.
# Prints TAP. Usage: tests/nnue_round.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the directory.
set -u
bindir=$(cd "${1:-bin}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/support/tap.sh"
tap_require "$bindir/chuhe-coordinator" "$bindir/chuhe-worker" "$bindir/chuhe-train" \
    "$bindir/chuhe-tune" "$bindir/chuhe-engine"
command -v mpirun >/dev/null 2>&1 || tap_skip_all "the network round" "mpirun is not installed"
case $bindir in */san) tap_skip_all "the network round" "minutes under the sanitizers" ;; esac
tmp=$(mktemp -d)
trap '[ -n "${CHUHE_TEST_KEEP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
round() { timeout -k 5 300 "$root/scripts/nnue-round" --bindir "$bindir" "$@"; }
r=$tmp/r
small=(-n 2 --games 8 --nodes 300 --random-plies 6 --train "--hidden 32 --epochs 2 --skip-plies 4 --valid-frac 0.3"
    --match-nodes 300 --match-games 6)

round --out "$r" "${small[@]}" >"$tmp/out.txt" 2>&1
check "scripts/nnue-round finishes a small round" $? "$tmp/out.txt"

rep=$r/report.md
grep -q '^## Data' "$rep" && grep -qE '^- datagen: 8 \(4 of 4 pairs complete\), [0-9]+ positions' "$rep" &&
    grep -qE '^- [0-9]+ positions/s per core of CPU time' "$rep"
check "report: the data (games, positions, positions/s per core)" $? "$rep"
grep -q '^## Training' "$rep" && grep -qE '^- kept: .* [0-9]+ training \+ [0-9]+ validation' "$rep" &&
    grep -q '^- epochs: 2 ' "$rep" && grep -qE '^- best: .*loss [0-9.]+' "$rep" &&
    grep -qE '^- export check: [0-9]+ positions' "$rep"
check "report: the training (positions, epochs, best loss, export check)" $? "$rep"
grep -q '^## Match' "$rep" && grep -qE '^ +Elo [-0-9.inf]+ \+/- [0-9.inf]+, nElo' "$rep" &&
    grep -qE '^- W-D-L: [0-9]+-[0-9]+-[0-9]+, score [0-9.]+ %' "$rep" &&
    grep -qE '^ +LLR -?[0-9.]+ ' "$rep" && grep -qE '^- SPRT: (continue|H0 accepted|H1 accepted)' "$rep"
check "report: the match (W-D-L, score, Elo, LLR, SPRT verdict)" $? "$rep"
[ "$(grep -c '^```sh' "$rep")" = 3 ] && grep -q 'chuhe-run .*--out '"$r"'/data.h5' "$rep" &&
    grep -q 'mpirun -np 2 .*chuhe-train .*-o '"$r"'/net.nnue' "$rep" &&
    grep -q 'option.EvalFile='"$r"'/net.nnue' "$rep" && cmp -s "$rep" <(sed -n '/^# nnue-round report/,$p' "$tmp/out.txt")
check "report: each section with the command that repeats it, printed and in report.md" $? "$rep"

# the match played the trained network: the engine loads it as a network
printf 'setoption name EvalFile value %s\neval\nquit\n' "$r/net.nnue" | "$bindir/chuhe-engine" >"$tmp/eval.txt" 2>&1
grep -q '^NNUE: .*network 32x2' "$tmp/eval.txt" && [ -s "$r/match.pgn" ] &&
    [ "$("$bindir/chuhe-coordinator" verify "$r/match.h5" | sed -n 's/^games //p')" = 6 ]
check "the match's 6 games were stored, its network is a 32x2 network" $? "$tmp/eval.txt"

# --resume of a finished round: no step again, the files as they were
stamp() { stat -c '%n %Y %s' "$r/data.h5" "$r/net.nnue" "$r/net.nnue.ckpt" "$r/match.h5" "$r/match.pgn" 2>&1; }
before=$(stamp)
sleep 1
round --out "$r" --resume >"$tmp/resume.txt" 2>&1 && [ "$(stamp)" = "$before" ] &&
    [ "$(grep -c 'done already' "$tmp/resume.txt")" = 3 ]
check "--resume of a finished round runs no step again" $? "$tmp/resume.txt"

# a round stopped before its match: --resume plays the match alone
rm "$r/match.done" "$r/match.h5" "$r/match.pgn"
before=$(stat -c '%n %Y' "$r/data.h5" "$r/net.nnue")
round --out "$r" --resume >"$tmp/resume2.txt" 2>&1 &&
    [ "$(stat -c '%n %Y' "$r/data.h5" "$r/net.nnue")" = "$before" ] &&
    grep -q 'data: done already' "$tmp/resume2.txt" && grep -q 'train: done already' "$tmp/resume2.txt" &&
    [ -f "$r/match.done" ] && [ -s "$r/match.pgn" ] && grep -q '^## Match' "$r/report.md"
check "--resume after the training: data and network kept, the match played" $? "$tmp/resume2.txt"

# --games 0: the network from --data alone, no match
round --out "$tmp/d" -n 1 --games 0 --data "$r/data.h5" --match-games 0 \
    --train "--hidden 32 --epochs 1 --skip-plies 4 --valid-frac 0.3" >"$tmp/data.txt" 2>&1 &&
    [ ! -e "$tmp/d/data.h5" ] && [ -s "$tmp/d/net.nnue" ] &&
    grep -q "^- also trained on: $r/data.h5" "$tmp/d/report.md" && grep -q '^- read 1 file: 8 games' "$tmp/d/report.md" &&
    ! grep -q '^## Match' "$tmp/d/report.md"
check "--games 0 --data FILE: trained on FILE alone, no datagen" $? "$tmp/data.txt"

# refused: status 2, one line naming the option, no folder created (or the round untouched)
refused() {
    local word=$1 out=$2
    shift 2
    local was=''
    [ ! -d "$out" ] || was=$(ls -l --time-style=+%s.%N "$out")
    (cd "$tmp" && round --out "$out" "$@") >"$tmp/ref.txt" 2>&1
    local rc=$?
    local now=''
    [ ! -d "$out" ] || now=$(ls -l --time-style=+%s.%N "$out")
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/ref.txt")" = 1 ] && grep -qF -- "$word" "$tmp/ref.txt" &&
        [ "$now" = "$was" ]
    check "refused ($*): status 2, one line naming $word, nothing created ($(head -c 100 "$tmp/ref.txt"))" \
        $? "rc $rc; $(cat "$tmp/ref.txt")"
}
refused --games "$tmp/x" --games abc
refused --frobnicate "$tmp/x" --frobnicate
refused --tc "$tmp/x" --tc 10
refused --match-nodes "$tmp/x" --match-nodes 0
refused --data "$tmp/x" --data "$tmp/none.h5"
refused '--games 0' "$tmp/x" --games 0
refused --base "$tmp/x" --base "$r/data.h5"
refused --hidden "$tmp/x" --train "--hidden 33"
refused --sprt "$tmp/x" --sprt "elo0=0 elo1=1x0"
refused --out "$r" -n 2
refused '--games' "$r" --resume --games 10
refused --resume "$tmp/x" --resume
tap_end
