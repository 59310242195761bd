#!/usr/bin/env bash
# chuhe-tune and scripts/tune-loop lose nothing to a mistyped command, and every error
# says what to fix:
# - outputs are checked before any work: never a run file or an input of the command,
#   whatever option names it; a folder or a missing folder at once; an existing file
#   only with --force; an existing checkpoint points at --resume;
# - every numeric option is read strictly: exit status 2 and one line naming the option,
#   the text and the range (a table over every numeric option that --help lists);
#   --max-score 0 is no limit;
# - no training position is an error, fewer than the weights to fit a warning;
# - row N of the epoch table (text and TSV) holds the losses after N epochs;
# - scripts/tune-loop, run from another folder, checks its --out folder and its options
#   before the first game, and goes on with --resume on the round's own settings.
# Prints TAP lines. Usage: tests/tune_errors.sh <bindir>
set -u
bindir=$(cd "${1:-bin}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
tune=$bindir/chuhe-tune
writer=$bindir/tests/test_tune
loop=$root/scripts/tune-loop
. "$root/tests/support/tap.sh"
tap_require "$tune" "$writer"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# a program started without mpirun is a singleton that needs no helper daemon
export OMPI_MCA_ess_singleton_isolated=1
# The sanitizer build's leak report would count OpenMPI's start-up allocations.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

out=$("$writer" --write-runfile run.h5 8 3 2>&1)
[ -s run.h5 ]
check "a run file of 8 real games is written" $? "$out"
cp run.h5 run.copy
fast=(--skip-plies 4 --epochs 2 -q)

# tune ARGS...: chuhe-tune, stdout in $o, stderr in $e, exit status in $rc.
tune() {
    o=$(timeout 120 "$tune" "$@" 2>"$tmp/stderr")
    rc=$?
    e=$(cat "$tmp/stderr")
}

# refused NAME WANT ARGS...: exit status 2, stderr names WANT, nothing read (no stdout)
# and the run file untouched.
refused() {
    local name=$1 want=$2
    shift 2
    tune "$@"
    [ $rc -eq 2 ] && [ -z "$o" ] && grep -qF -- "$want" <<<"$e" && cmp -s run.h5 run.copy
    check "$name" $? "rc=$rc
$e
$o"
}

# ---- outputs --------------------------------------------------------------------------

refused "-o naming the run file is refused" "-o run.h5: is also an input" run.h5 -o run.h5
refused "--checkpoint naming the run file is refused" "--checkpoint run.h5: is also an input" \
    run.h5 --checkpoint run.h5
refused "--log naming the run file is refused" "--log run.h5: is also an input" run.h5 --log run.h5
refused "--plot naming the run file is refused" "--plot run.h5: is also an input" \
    run.h5 --plot run.h5
cp run.h5 other.h5
refused "an HDF5 file is never written, even with --force" "-o other.h5: is an HDF5 run file" \
    run.h5 --force -o other.h5
cp "$root/engine/default.weights" start.weights
refused "--weights named as -o is refused" "-o start.weights: is also an input" \
    run.h5 --force --weights start.weights -o start.weights
mkdir folder
refused "-o naming a folder fails at once" "-o folder: is a folder" run.h5 -o folder
refused "-o in a missing folder fails at once" "-o missing/t.w: the folder does not exist" \
    run.h5 -o missing/t.w
refused "two outputs naming one file are refused" "--log t.w: -o writes it too" \
    run.h5 -o t.w --log t.w

echo 'keep me' >old.w
refused "an existing -o needs --force" "-o old.w: the file exists (give --force" run.h5 -o old.w
grep -qx 'keep me' old.w
check "the refused -o is untouched" $? "$(cat old.w)"
tune run.h5 "${fast[@]}" -o old.w --force
[ $rc -eq 0 ] && head -1 old.w | grep -qx '# chuhe weights 1'
check "--force replaces an existing -o" $? "rc=$rc
$e"

tune run.h5 "${fast[@]}" -o a.w
[ $rc -eq 0 ] && [ -s a.w.ckpt ]
check "a fresh run writes its checkpoint" $? "rc=$rc
$e"
refused "an existing checkpoint points at --resume" \
    "--checkpoint a.w.ckpt: the file exists (give --resume to go on from it" \
    run.h5 "${fast[@]}" -o b.w --checkpoint a.w.ckpt
refused "--resume of a finished run replaces its weights only with --force" \
    "-o a.w: the file exists (give --force" run.h5 "${fast[@]}" -o a.w --resume --epochs 3
tune run.h5 "${fast[@]}" -o a.w --resume --force --epochs 3
[ $rc -eq 0 ] && grep -q 'resumed from a.w.ckpt after epoch 2' <<<"$o"
check "--resume --force goes on from the checkpoint and rewrites it" $? "rc=$rc
$e"
refused "--resume without a checkpoint fails before reading data" \
    "--resume: c.w.ckpt: No such file" run.h5 -o c.w --resume
tune run.h5 -o d.w --dry-run
[ $rc -eq 0 ] && [ ! -e d.w ] && [ ! -e d.w.tsv ] && grep -q '^dry run' <<<"$o" && ! grep -q '^read' <<<"$o"
check "--dry-run checks and writes nothing" $? "rc=$rc
$o
$e"

# ---- numbers --------------------------------------------------------------------------

# What the brief of every numeric option promises, word for word.
while IFS='|' read -r opt value want; do
    refused "$opt '$value' is refused" "chuhe-tune: $opt: '$value' $want" "$opt" "$value" run.h5
done <<'EOF'
--lr|0|is out of range (allowed: 1e-06..1e+06)
--lambda|2|is out of range (allowed: 0..1)
--valid-frac|1|is out of range (allowed: 0..0.9)
--epochs|-1|is out of range (allowed: 0..100000000)
--max-score|abc|is not a whole number (allowed: 0..32767)
--max-score|-5|is out of range (allowed: 0..32767)
--max-score||is not a whole number (allowed: 0..32767)
--max-score|99999999999999999999|is out of range (allowed: 0..32767)
--max-score|1e3|is not a whole number (allowed: 0..32767)
--max-score|100abc|is not a whole number (allowed: 0..32767)
EOF

# Every option whose value --help names as a number, with every kind of bad text.
mapfile -t numeric < <("$tune" --help | sed -nE 's/^ +(-[a-zA-Z], )?(--[a-zA-Z0-9-]+) (N|CP|F|X|L)( .*)?$/\2/p')
[ "${#numeric[@]}" -ge 17 ]
check "--help lists the numeric options (${#numeric[@]})" $? "${numeric[*]}"
for opt in "${numeric[@]}"; do
    bad=''
    # a word, a blank, hexadecimal, an exponent, an overflow (the rest: test_numparse)
    for value in abc ' 1' 0x10 1e999 99999999999999999999; do
        tune run.h5 -o n.w "$opt" "$value"
        line="chuhe-tune: $opt: '$value' is "
        if [ $rc -ne 2 ] || [ -n "$o" ] || [ "$(wc -l <<<"$e")" -ne 1 ] || [ "${e#"$line"}" = "$e" ] ||
            ! grep -qE '\(allowed: [-+0-9.e]+\.\.[-+0-9.e]+\)$' <<<"$e"; then
            bad+="'$value': rc=$rc $e"$'\n'
        fi
    done
    [ -z "$bad" ]
    check "$opt: every bad number exits 2 with one line naming it and its range" $? "$bad"
done

"$tune" --help | grep -q 'drop |search score| > CP (default 2000; 0: no limit'
check "--help says --max-score 0 is no limit" $? "$("$tune" --help | grep -A1 max-score)"
tune run.h5 "${fast[@]}" -o m.w --max-score 0
[ $rc -eq 0 ] && grep -q ' 0 |score| (no limit),' <<<"$o"
check "--max-score 0 drops no position for its score" $? "rc=$rc
$o
$e"

# ---- how many positions ------------------------------------------------------------------

tune run.h5 -o z.w --skip-plies 100000
[ $rc -eq 1 ] && grep -q 'chuhe-tune: no training positions left after selection' <<<"$e" &&
    [ ! -e z.w ] && [ ! -e z.w.tsv ]
check "no training position is refused, saying what to change" $? "rc=$rc
$e"

# --K: eight sampled results may all be draws, and a fit of K would warn as well
tune run.h5 "${fast[@]}" -o few.w --per-game 1 --valid-frac 0 --K 0.004
kept=$(sed -nE 's/^kept: .*: ([0-9]+) training .*/\1/p' <<<"$o")
[ $rc -eq 0 ] && [ -n "$kept" ] &&
    grep -qE "^chuhe-tune: warning: $kept training positions? for [0-9]+ weights to fit: .*reasonable: at least" <<<"$e" &&
    [ "$(grep -c warning <<<"$e")" -eq 1 ]
check "a tiny training set is fitted with one warning naming its size" $? "rc=$rc
$o
$e"

# ---- the epoch table ---------------------------------------------------------------------

rows=(run.h5 --skip-plies 4 --lr 3 --valid-frac 0.3 --patience 0 -q)
tune "${rows[@]}" --epochs 3 -o e3.w
o3=$o
tune "${rows[@]}" --epochs 0 -o e0.w
tune "${rows[@]}" --epochs 1 -o e1.w
[ "$(cut -f1 e3.w.tsv | tr '\n' ' ')" = "epoch 0 1 2 3 " ] &&
    [ "$(sed -n 2p e0.w.tsv | cut -f1-3)" = "$(sed -n 2p e3.w.tsv | cut -f1-3)" ] &&
    [ "$(sed -n 3p e1.w.tsv | cut -f1-3)" = "$(sed -n 3p e3.w.tsv | cut -f1-3)" ] &&
    [ "$(wc -l <e1.w.tsv)" -eq 3 ]
check "TSV row N holds the losses after N epochs (0: the start)" $? "$(paste e0.w.tsv e1.w.tsv e3.w.tsv)"

# the best row by validation loss, or by training loss when no opening fell to validation
best=$(awk -F'\t' 'NR > 1 { x = ($3 ~ /nan/) ? $2 : $3 } NR > 1 && (b == "" || x < v) { v = x; b = $1 }
    END { print b }' e3.w.tsv)
grep -Eq '^ +0 +[0-9.]+ +([0-9.]+|nan) +[0-9.]+  start$' <<<"$o3" &&
    grep -Eq '^ +3 +[0-9.]+ +([0-9.]+|nan) +[0-9.]+$' <<<"$o3" &&
    grep -q "^best: the weights after $best epochs\?," <<<"$o3"
check "the text table labels row 0 as the start and names the best row" $? "best $best
$o3"

# ---- scripts/tune-loop --------------------------------------------------------------------

for p in chuhe-coordinator chuhe-worker chuhe-engine; do
    [ -x "$bindir/$p" ] || { tap_end; exit; }
done
mkdir -p elsewhere/used
echo 'mine' >elsewhere/used/notes.txt
cd elsewhere || exit 1
# loop_refused NAME WANT ARGS...: exit status 2 at once, naming WANT, no folder made and
# the used one untouched.
loop_refused() {
    local name=$1 want=$2 before
    shift 2
    before=$(ls -l used)
    o=$(timeout 60 "$loop" --bindir "$bindir" "$@" 2>&1)
    rc=$?
    [ $rc -eq 2 ] && grep -qF -- "$want" <<<"$o" && [ ! -e fresh ] && [ "$(ls -l used)" = "$before" ]
    check "tune-loop: $name" $? "rc=$rc
$o"
}
loop_refused "a folder that is not empty is refused" "--out used: the folder is not empty" --out used
loop_refused "a bad number is refused" "--games: 'x' is not a whole number" --out fresh --games x
loop_refused "the tuner's options are checked first" "unknown option '--bogus'" --out fresh --tune "--bogus 1"
loop_refused "the tuner's numbers are checked first" "--lr: '0' is out of range" --out fresh \
    --tune "--lr 0"
loop_refused "the report's SPRT is checked first" "elo0 must be a number" --out fresh --sprt elo0=x
loop_refused "--resume needs a round" "--resume: used holds no tune-loop round" --out used --resume
loop_refused "a missing --weights is refused" "--weights nope: cannot read it" --out fresh \
    --weights nope
touch used/selfplay.h5
loop_refused "--force never replaces a run file" "--force: used/selfplay.h5 exists" --out used --force
rm used/selfplay.h5

if ! command -v mpirun >/dev/null 2>&1; then
    skip "tune-loop: a round from another folder" "mpirun is not installed"
else
    small=(--bindir "$bindir" --out round --games 4 --nodes 200 --match-games 2 -n 1
        --random-plies 4 --tune "--epochs 2 --skip-plies 0 --valid-frac 0 -q")
    o=$(timeout 300 "$loop" "${small[@]}" 2>&1)
    rc=$?
    [ $rc -eq 0 ] && [ -s round/report.txt ] && head -1 round/tuned.weights | grep -qx '# chuhe weights 1'
    check "tune-loop: a round from another folder" $? "rc=$rc
$o"
    cp round/report.txt report.before
    o=$(timeout 60 "$loop" "${small[@]}" 2>&1)
    rc=$?
    [ $rc -eq 2 ] && grep -q 'the folder is not empty (--resume' <<<"$o" && cmp -s report.before round/report.txt
    check "tune-loop: the same --out again is refused, the round untouched" $? "rc=$rc
$o"
    o=$(timeout 300 "$loop" "${small[@]}" --resume 2>&1)
    rc=$?
    [ $rc -eq 0 ] && grep -q 'resumed from .*tuned.weights.ckpt after epoch 2' round/tune.log
    check "tune-loop: --resume goes on with the round" $? "rc=$rc
$o"
    # the round's settings come from round.conf: an option with another value is refused,
    # and a resume that leaves them out plays the round's own numbers
    cp round/report.txt report.before
    o=$(timeout 60 "$loop" --bindir "$bindir" --out round --resume --games 6 2>&1)
    rc=$?
    [ $rc -eq 2 ] && grep -qF -- "--resume: --games '6' differs from the round's '4'" <<<"$o" &&
        cmp -s report.before round/report.txt
    check "tune-loop: --resume --games 6 of a 4-game round is refused, the round untouched" $? \
        "rc=$rc
$o"
    o=$(timeout 300 "$loop" --bindir "$bindir" --out round --resume -n 1 2>&1)
    rc=$?
    [ $rc -eq 0 ] && grep -q 'self-play: 4 games at 200 nodes' <<<"$o" &&
        grep -q '^self-play  4 ' round/report.txt
    check "tune-loop: --resume alone keeps the round's games, nodes and tuner options" $? \
        "rc=$rc
$o
$(head -3 round/report.txt)"
fi

tap_end
