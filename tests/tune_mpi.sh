#!/usr/bin/env bash
# bin/chuhe-tune end to end on a small run file of real games that the test writes
# itself (test_tune --write-runfile): 1 and 2 MPI ranks, and a run without mpirun, give
# the same weights and losses (full batch and mini-batches); a resumed run equals an
# uninterrupted one; bad input is refused on every rank with the file named; the weights
# load into the engine; the table, TSV, plot and report are written; --bench measures.
# Prints TAP lines. Usage: tests/tune_mpi.sh <bindir>
set -u
bindir=${1:-bin}
tune=$bindir/chuhe-tune
. "$(dirname "$0")/support/tap.sh"
. "$(dirname "$0")/support/trainer.sh"

o='' o1='' o2='' omb=''
trainer_setup "$tune" "the tuner"

single() { # chuhe-tune's arguments, without mpirun
    timeout 120 "$tune" "$@"
}

# Every weight within 1 of the other file's (the reductions add in another order).
same_weights() {
    awk 'NR == FNR { if ($1 !~ /^#/ && NF == 3) { mg[$1] = $2; eg[$1] = $3 } next }
         $1 !~ /^#/ && NF == 3 {
             n++
             d1 = $2 - mg[$1]; d2 = $3 - eg[$1]
             if (!($1 in mg) || d1 > 1 || d1 < -1 || d2 > 1 || d2 < -1) { bad++; print "differs: " $0 " vs " mg[$1] " " eg[$1] }
         }
         END { if (n == 0 || bad) exit 1 }' "$1" "$2"
}

# Both loss columns equal to a relative 1e-9.
same_losses() {
    paste "$1" "$2" | awk -F'\t' 'NR > 1 {
        n++
        for (c = 2; c <= 3; c++) {
            a = $c; b = $(c + 4)
            if (a == "nan" && b == "nan") continue
            d = a - b; if (d < 0) d = -d
            s = a < 0 ? -a : a
            if (d > 1e-9 * s + 1e-15) { bad++; print "epoch " $1 ": " a " vs " b }
        }
    } END { if (n == 0 || bad) exit 1 }'
}

trainer_runfile "$tmp/run.h5" 16 7

# Without a validation set the best weights are the last ones, so they have moved.
common=(--skip-plies 4 --epochs 8 --lr 3 --seed 5 --valid-frac 0 --patience 0 -q)

out1=$(mpi 1 "${common[@]}" -o "$tmp/np1.weights" "$tmp/run.h5" 2>&1)
rc1=$?
out2=$(mpi 2 "${common[@]}" -o "$tmp/np2.weights" "$tmp/run.h5" 2>&1)
rc2=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]
check "mpirun -np 1 and -np 2 runs succeed" $? "$out1
$out2"

grep -q 'trace check: [0-9]* positions, the linear form equals evaluate()' <<<"$out1" &&
    grep -qE '^K = [0-9.]+(e-?[0-9]+)? \(fitted' <<<"$out1"
check "the trace check passes and K is fitted before optimising" $? "$out1"

diff <(grep -E '^(read|dropped|kept|K =)' <<<"$out1") <(grep -E '^(read|dropped|kept|K =)' <<<"$out2") >/dev/null
check "1 and 2 ranks select the same positions and fit the same K" $? "$out1
$out2"

d=$(same_weights "$tmp/np1.weights" "$tmp/np2.weights" 2>&1) && same_losses "$tmp/np1.weights.tsv" "$tmp/np2.weights.tsv" >/dev/null
check "full batch: 1 and 2 ranks give the same weights (within 1) and losses (1e-9)" $? "$d
$(same_losses "$tmp/np1.weights.tsv" "$tmp/np2.weights.tsv")"

out0=$(single "${common[@]}" -o "$tmp/np0.weights" "$tmp/run.h5" 2>&1)
cmp -s "$tmp/np0.weights" "$tmp/np1.weights"
check "a run without mpirun equals mpirun -np 1" $? "$out0"

mb=(--batch 100 --epochs 4 --valid-frac 0.3)
omb=$(mpi 1 "${common[@]}" "${mb[@]}" -o "$tmp/mb1.weights" "$tmp/run.h5" 2>&1) &&
    o2=$(mpi 2 "${common[@]}" "${mb[@]}" -o "$tmp/mb2.weights" "$tmp/run.h5" 2>&1) &&
    same_weights "$tmp/mb1.weights" "$tmp/mb2.weights" >/dev/null &&
    same_losses "$tmp/mb1.weights.tsv" "$tmp/mb2.weights.tsv" >/dev/null
check "mini-batches with validation: 1 and 2 ranks give the same weights and losses" $? "$omb
$o2
$(same_losses "$tmp/mb1.weights.tsv" "$tmp/mb2.weights.tsv")"

# Interrupted after 4 epochs and resumed to 8 (on 2 ranks): the same run. The first run
# wrote its weights, which the resumed one replaces: --force.
o1=$(mpi 2 "${common[@]}" --epochs 4 -o "$tmp/res.weights" "$tmp/run.h5" 2>&1) &&
    o2=$(mpi 2 "${common[@]}" --resume --force -o "$tmp/res.weights" "$tmp/run.h5" 2>&1) &&
    grep -q 'resumed from .* after epoch 4' <<<"$o2" &&
    cmp -s "$tmp/res.weights" "$tmp/np2.weights" &&
    same_losses "$tmp/res.weights.tsv" "$tmp/np2.weights.tsv" >/dev/null
check "--resume after 4 of 8 epochs equals the uninterrupted run" $? "$o1
$o2"

o=$(mpi 1 "${common[@]}" --resume --force --lr 1 -o "$tmp/res.weights" "$tmp/run.h5" 2>&1)
[ $? -ne 0 ] && grep -q 'other settings' <<<"$o"
check "--resume with another learning rate is refused" $? "$o"

# 4 epochs: the rows of the weights after 0 (the start) to 4 epochs.
rows=$(($(wc -l <"$tmp/mb1.weights.tsv") - 1))
[ "$rows" -eq 5 ] && head -1 "$tmp/mb1.weights.tsv" | grep -q "^epoch	train_loss	valid_loss	seconds$" &&
    [ "$(sed -n '2s/\t.*//p' "$tmp/mb1.weights.tsv")" = 0 ] &&
    grep -Eq '^ +0 +0\.[0-9]+ +0\.[0-9]+ +[0-9.]+  start$' <<<"$omb" &&
    grep -Eq '^ +4 +0\.[0-9]+ +0\.[0-9]+ +[0-9.]+$' <<<"$omb" &&
    grep -q 'parameters changed; the [0-9]* that moved most' <<<"$out1" &&
    grep -Eq '^  [a-z_]+(\[[a-z0-9]+\])? +-?[0-9]+/-?[0-9]+ +-?[0-9]+/-?[0-9]+$' <<<"$out1"
check "per-epoch table on stdout and as TSV, and the moved parameters" $? "$omb
$out1"

trainer_check_plot "$tmp/np1.weights.png" "$out1"

if [ -x "$engine" ]; then
    o=$(engine_run "setoption name EvalFile value $tmp/np1.weights\nisready\nquit\n")
    grep -q readyok <<<"$o" && ! grep -q 'error' <<<"$o"
    check "the engine loads the tuned weights" $? "$o"
fi

printf 'not an HDF5 file\n%.0s' {1..200} >"$tmp/bad.h5"
o=$(mpi 2 "${common[@]}" -o "$tmp/bad.weights" "$tmp/bad.h5" 2>&1)
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "bad.h5" <<<"$o" && [ ! -e "$tmp/bad.weights" ]
check "a file that is not a run file is refused on 2 ranks, naming it" $? "rc=$rc
$o"

cp "$tmp/run.h5" "$tmp/trunc.h5"
truncate -s $(($(stat -c %s "$tmp/run.h5") / 2)) "$tmp/trunc.h5"
o=$(mpi 2 "${common[@]}" -o "$tmp/bad.weights" "$tmp/run.h5" "$tmp/trunc.h5" 2>&1)
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "trunc.h5" <<<"$o"
check "a truncated run file is refused, naming it" $? "rc=$rc
$o"

o=$(single --freeze material,no_such_term "$tmp/run.h5" 2>&1)
[ $? -ne 0 ] && grep -q "unknown term 'no_such_term'" <<<"$o" && grep -q 'psqt_king' <<<"$o"
check "--freeze with an unknown term lists the terms" $? "$o"

o=$(mpi 1 "${common[@]}" --freeze material,psqt_king -o "$tmp/frz.weights" "$tmp/run.h5" 2>&1)
"$engine" weights "$tmp/def.weights" >/dev/null 2>&1
diff <(grep -E '^(material|psqt_king)' "$tmp/frz.weights") <(grep -E '^(material|psqt_king)' "$tmp/def.weights") >/dev/null &&
    [ "$(grep -cE '^(material|psqt_king)' "$tmp/def.weights")" -gt 90 ] &&
    [ "$(diff "$tmp/frz.weights" "$tmp/def.weights" | grep -c '^<')" -gt 20 ]
check "--freeze keeps the frozen terms at their starting values, others move" $? "$o"

o=$(mpi 2 --bench --bench-positions 20000 2>&1)
grep -Eq 'gradient pass: [0-9.]+ M positions/s per rank' <<<"$o" && grep -Eq 'memory: [0-9.]+ bytes/position' <<<"$o"
check "--bench on 2 ranks reports speed and memory" $? "$o"

tap_end
