#!/usr/bin/env bash
# bin/chuhe-train end to end on a small run file of real games that the test writes
# itself (test_tune --write-runfile): 1 and 2 MPI ranks, and a run without mpirun, give
# the same network; a resumed run equals an uninterrupted one (bit for bit with
# --no-balance); the export is checked
# against the engine's evaluation and refused beyond the bound; the engine loads the
# network; bad options and outputs are refused before any work; --bench measures.
# Prints TAP lines. Usage: tests/train_mpi.sh <bindir>
set -u
bindir=${1:-bin}
train=$bindir/chuhe-train
. "$(dirname "$0")/support/tap.sh"
. "$(dirname "$0")/support/trainer.sh"
tap_require "$engine"
trainer_setup "$train" "the trainer"

# Two network files of hidden size $3 with the same header and every int16 weight
# within 1, every output bias within 16 (the ranks add the gradients in another order).
same_net() {
    local a=$1 b=$2 h=$3 buckets=1
    local b2=$((112 + 2 * (1260 * h + h + 2 * h * buckets)))
    cmp -s <(head -c 112 "$a" | cut -c1-44) <(head -c 112 "$b" | cut -c1-44) || return 1
    paste <(od -An -v -td2 -w2 -j 112 -N $((b2 - 112)) "$a") \
        <(od -An -v -td2 -w2 -j 112 -N $((b2 - 112)) "$b") |
        awk '{ d = $1 - $2; if (d > 1 || d < -1) bad++; n++ } END { exit (n == 0 || bad) }' &&
        paste <(od -An -v -td4 -w4 -j "$b2" "$a") <(od -An -v -td4 -w4 -j "$b2" "$b") |
        awk '{ d = $1 - $2; if (d > 16 || d < -16) bad++; n++ } END { exit (n == 0 || bad) }'
}

trainer_runfile "$tmp/run.h5" 16 7

common=(--skip-plies 4 --hidden 64 --epochs 4 --batch 400 --lr 0.005 --lr-step 2 --seed 5 -q)

o1=$(mpi 1 "${common[@]}" -o "$tmp/np1.nnue" "$tmp/run.h5" 2>&1)
rc1=$?
o2=$(mpi 2 "${common[@]}" -o "$tmp/np2.nnue" "$tmp/run.h5" 2>&1)
rc2=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -s "$tmp/np1.nnue" ] && [ -s "$tmp/np2.nnue" ]
check "mpirun -np 1 and -np 2 train and write a network" $? "$o1
$o2"

diff <(grep -E '^(read|dropped|kept|K =)' <<<"$o1") <(grep -E '^(read|dropped|kept|K =)' <<<"$o2") >/dev/null &&
    grep -qE '^K = [0-9.]+(e-?[0-9]+)? \(fitted' <<<"$o1"
check "1 and 2 ranks select the same positions and fit the same K" $? "$o1
$o2"

same_net "$tmp/np1.nnue" "$tmp/np2.nnue" 64 &&
    paste "$tmp/np1.nnue.tsv" "$tmp/np2.nnue.tsv" | awk -F'\t' 'NR > 1 { n++
        for (c = 2; c <= 3; c++) { d = $c - $(c + 4); if (d < 0) d = -d; if (d > 1e-6 * $c) bad++ } }
        END { exit (n != 5 || bad) }'
check "1 and 2 ranks give the same network (weights within 1) and losses (1e-6)" $? \
    "$(paste "$tmp/np1.nnue.tsv" "$tmp/np2.nnue.tsv")"

o0=$(timeout 120 "$train" "${common[@]}" -o "$tmp/np0.nnue" "$tmp/run.h5" 2>&1)
cmp -s "$tmp/np0.nnue" "$tmp/np1.nnue"
check "a run without mpirun equals mpirun -np 1" $? "$o0"

grep -qE '^export check: [0-9]+ positions, quantised - float: max \|diff\| [0-9.]+, mean [0-9.]+ \(bounds 2 and 1\)$' <<<"$o1" &&
    grep -qE 'validation loss against the results alone 0\.[0-9]+' <<<"$o1"
check "the export is checked against the engine's evaluation, within the bound" $? "$o1"

# 2 epochs, then resumed to 4 on 2 ranks: the same network as the run never stopped,
# bit for bit when each rank computes its own positions (--no-balance); within the
# order of additions when the ranks split each step as they go (the default).
nb=(--no-balance)
r0=$(mpi 2 "${common[@]}" "${nb[@]}" -o "$tmp/nb2.nnue" "$tmp/run.h5" 2>&1) &&
    r1=$(mpi 2 "${common[@]}" "${nb[@]}" --epochs 2 -o "$tmp/res.nnue" "$tmp/run.h5" 2>&1) &&
    r2=$(mpi 2 "${common[@]}" "${nb[@]}" --resume --force -o "$tmp/res.nnue" "$tmp/run.h5" 2>&1) &&
    grep -q 'resumed from .* after epoch 2' <<<"$r2" &&
    cmp -s "$tmp/res.nnue" "$tmp/nb2.nnue" && same_net "$tmp/nb2.nnue" "$tmp/np1.nnue" 64
check "--no-balance: --resume after 2 of 4 epochs equals the uninterrupted run bit for bit" $? \
    "${r0:-}
${r1:-}
${r2:-}"

r1=$(mpi 2 "${common[@]}" --epochs 2 -o "$tmp/resb.nnue" "$tmp/run.h5" 2>&1) &&
    r2=$(mpi 2 "${common[@]}" --resume --force -o "$tmp/resb.nnue" "$tmp/run.h5" 2>&1) &&
    grep -q 'resumed from .* after epoch 2' <<<"$r2" &&
    same_net "$tmp/resb.nnue" "$tmp/np2.nnue" 64
check "shared steps: --resume after 2 of 4 epochs gives the uninterrupted network (within 1)" $? \
    "${r1:-}
${r2:-}"

# a checkpoint records the hash of the positions over all ranks: one written on one rank
# resumes on two only when both kept the same positions, the duplicates' removal (which
# sends each key to the rank that owns it and the answers back) included
r1=$(mpi 1 "${common[@]}" --epochs 2 -o "$tmp/res1.nnue" "$tmp/run.h5" 2>&1) &&
    r2=$(mpi 2 "${common[@]}" --resume --force -o "$tmp/res1.nnue" "$tmp/run.h5" 2>&1) &&
    grep -q 'resumed from .* after epoch 2' <<<"$r2" &&
    grep -qE '[, ][1-9][0-9]* duplicates removed' <<<"$r1"
check "a one-rank checkpoint resumes on two ranks: the same positions, duplicates and all" $? \
    "${r1:-}
${r2:-}"

o=$(mpi 1 "${common[@]}" --resume --force --lr 0.01 -o "$tmp/res.nnue" "$tmp/run.h5" 2>&1)
[ $? -ne 0 ] && grep -q 'other settings' <<<"$o"
check "--resume with another learning rate is refused" $? "$o"

rows=$(($(wc -l <"$tmp/np1.nnue.tsv") - 1))
[ "$rows" -eq 5 ] && head -1 "$tmp/np1.nnue.tsv" | grep -q "^epoch	train_loss	valid_loss	seconds$" &&
    grep -Eq '^ +4 +0\.[0-9]+ +0\.[0-9]+ +[0-9.]+$' <<<"$o1"
check "per-epoch table on stdout and as TSV" $? "$o1"

trainer_check_plot "$tmp/np1.nnue.png" "$o1"

o=$(engine_run "setoption name EvalFile value $tmp/np1.nnue\nisready\nposition startpos\neval\nquit\n")
grep -q 'search uses the NNUE evaluation' <<<"$o" && ! grep -q 'error' <<<"$o"
check "the engine loads the network and evaluates with it" $? "$o"

o=$(mpi 1 "${common[@]}" --max-diff 0 -o "$tmp/strict.nnue" "$tmp/run.h5" 2>&1)
[ $? -ne 0 ] && grep -q 'does not match the float one within the bounds' <<<"$o" &&
    [ ! -e "$tmp/strict.nnue" ]
check "an export beyond the bound is refused and nothing is written" $? "$o"

o=$(timeout 60 "$train" --hidden 100 "$tmp/run.h5" 2>&1)
[ $? -eq 2 ] && grep -q -- '--hidden: 100 is not a multiple of 32' <<<"$o"
check "--hidden must be a multiple of 32" $? "$o"

o=$(timeout 60 "$train" --freeze material "$tmp/run.h5" 2>&1)
[ $? -eq 2 ] && grep -q "unknown option '--freeze' (chuhe-train --help" <<<"$o"
check "an option of chuhe-tune is refused by chuhe-train" $? "$o"

sum=$(cksum <"$tmp/run.h5")
o=$(timeout 60 "$train" --force -o "$tmp/run.h5" "$tmp/run.h5" 2>&1)
[ $? -eq 2 ] && grep -q -- "-o $tmp/run.h5" <<<"$o" && [ "$(cksum <"$tmp/run.h5")" = "$sum" ]
check "the run file is refused as an output, even with --force, and left alone" $? "$o"

# --init: the weights of a network of another shape (H = 32, 2 buckets, scale 300) as
# the start; at a step size of 1e-9 they stay on their grid
o=$(mpi 1 --skip-plies 4 --hidden 32 --buckets 2 --scale 300 --epochs 2 --batch 400 --seed 5 \
    -o "$tmp/src.nnue" "$tmp/run.h5" 2>&1)
best=$(sed -n 's/^best: .*validation loss \([0-9.]*\);.*/\1/p' <<<"$o")
same=(--skip-plies 4 --epochs 1 --batch 400 --lr 1e-9 --seed 5)
init=("${same[@]}" --init "$tmp/src.nnue")
o=$(mpi 2 "${init[@]}" -o "$tmp/init.nnue" "$tmp/run.h5" 2>&1)
[ $? -eq 0 ] && [ -n "$best" ] && grep -q "^starting from the weights of $tmp/src.nnue$" <<<"$o" &&
    grep -q '^training 1260 x 32 -> SCReLU -> 2 buckets ' <<<"$o" &&
    awk -F'\t' -v b="$best" 'NR == 2 { d = $3 - b; if (d < 0) d = -d; exit !($1 == 0 && b > 0 && d <= 1e-4 * b) }' \
        "$tmp/init.nnue.tsv" &&
    cmp -s <(head -c 44 "$tmp/src.nnue") <(head -c 44 "$tmp/init.nnue") &&
    cmp -s <(tail -c +113 "$tmp/src.nnue") <(tail -c +113 "$tmp/init.nnue")
check "--init: the network's shape, epoch 0's validation loss is its own (${best:-none}), and it is written back unchanged" \
    $? "$o
$(cat "$tmp/init.nnue.tsv" 2>&1)"

# a resume needs the same --init: not none (the shape given as the network's), not other weights
o2= o3=
o=$(mpi 1 "${init[@]}" --epochs 2 --resume --force -o "$tmp/init.nnue" "$tmp/run.h5" 2>&1) &&
    o2=$(mpi 1 "${same[@]}" --hidden 32 --buckets 2 --scale 300 --epochs 2 --resume --force \
        -o "$tmp/init.nnue" "$tmp/run.h5" 2>&1)
[ $? -ne 0 ] && grep -q '^resumed from' <<<"$o" && grep -q 'other settings' <<<"$o2" &&
    grep -q 'init=[0-9a-f]\{32\}$' <<<"$o2" &&
    o3=$(mpi 1 --skip-plies 4 --hidden 32 --buckets 2 --scale 300 --epochs 1 --batch 400 --seed 6 \
        -o "$tmp/other.nnue" "$tmp/run.h5" 2>&1) &&
    o3=$(mpi 1 "${same[@]}" --init "$tmp/other.nnue" --epochs 2 --resume --force \
        -o "$tmp/init.nnue" "$tmp/run.h5" 2>&1)
[ $? -ne 0 ] && grep -q 'other settings' <<<"$o3"
check "--init: the checkpoint records the network, a resume without it or with another is refused" $? "$o
$o2
$o3"

sum=$(cksum <"$tmp/np1.nnue")
o=$(timeout 60 "$train" --init "$tmp/np1.nnue" --hidden 128 "$tmp/run.h5" 2>&1)
[ $? -eq 2 ] && grep -q -- "^chuhe-train: --hidden 128: the --init network $tmp/np1.nnue has 64 (leave --hidden out to take it)$" <<<"$o" &&
    o=$(timeout 60 "$train" --init "$tmp/run.h5" "$tmp/run.h5" 2>&1)
[ $? -eq 2 ] && grep -q -- "^chuhe-train: --init: $tmp/run.h5: not a chuhe network file" <<<"$o" &&
    o=$(timeout 60 "$train" --init "$tmp/np1.nnue" --force -o "$tmp/np1.nnue" "$tmp/run.h5" 2>&1)
[ $? -eq 2 ] && grep -q -- "-o $tmp/np1.nnue: is also an input" <<<"$o" && [ "$(cksum <"$tmp/np1.nnue")" = "$sum" ]
check "--init: another --hidden, a file that is not a network, and the network as -o are refused" $? "$o"

o=$(mpi 2 --bench --bench-seconds 1 --bench-positions 5000 --hidden 64 2>&1)
grep -Eq 'memory: [0-9.]+ bytes/position' <<<"$o" &&
    grep -Eq "^a step's computing \(the pass and the update, by wall time\): [0-9.]+ ms on average over the ranks, [0-9.]+ ms on the slowest rank of each step \(\+[0-9.]+ %\), over [1-9][0-9]* steps$" <<<"$o" &&
    grep -Eq "^shared steps: each rank computed [0-9.]+-[0-9.]+ times an even share of the positions" <<<"$o" &&
    tail -1 <<<"$o" | grep -Eq '^train: [0-9]+ positions/s per core of CPU time \(H=64, B=1, 2 ranks\)$'
check "--bench on 2 ranks reports memory, the ranks' balance and, last, positions/s per core" $? "$o"

o=$(mpi 2 --bench --bench-seconds 0.5 --bench-positions 2000 --hidden 32 --no-balance 2>&1)
grep -q '^shared steps: off (--no-balance)' <<<"$o" && tail -1 <<<"$o" | grep -q '^train: '
check "--bench --no-balance: each rank computes its own positions" $? "$o"

tap_end
