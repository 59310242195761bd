#!/usr/bin/env bash
# Output paths end to end: every output option of every program held against an
# existing run file and against an input of the same command (the coordinator's --out,
# -pgnout, --ack-log, export -o and its standard output, keygen; chuhe-tune's -o, --log,
# --plot, --checkpoint; chuhe-engine's `weights PATH`; scripts/chuhe-run, its
# out/run.h5 link; scripts/tune-loop's --out). Each is refused before any work, and the
# run file and the inputs stay byte for byte what they were; the run file still
# verifies. The worker writes no file. Also: a start of the coordinator that fails (a
# port in use, an --ack-log in a missing folder, a bad openings file) leaves no file
# behind, so that the corrected command starts the run; -pgnout appends; chuhe-run adds
# its default node limit only to a run given no limit.
# Prints TAP. Usage: tests/outputs_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=$(cd "${1:-bin}" && pwd) # absolute: the cases run in the scratch folder
. "$(dirname "$0")/support/e2e.sh"
tune=$bindir/chuhe-tune engine=$bindir/chuhe-engine
e2e_begin "output paths end to end" 39 "$coord" "$worker" "$tune" "$engine"
scripts=$root/scripts

# ---- the files every case must leave alone ----
e2e_run base --games 2 --nodes 300 --max-plies 100 --seed 3
run=$tmp/base.h5
check "a run file to protect" $((rc_c != 0 || rc_w != 0)) "$tmp/base.err"
cp "$run" "$tmp/other.h5"               # another run file, no input of the commands
cp "$run" "$tmp/k.key"                  # a run file where keygen k would write
echo 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1' >"$tmp/book.epd"
printf '[Event "book"]\n\n1. h2e2 h9g7 *\n' >"$tmp/book.pgn"
"$engine" weights "$tmp/w.weights" >/dev/null
kept=("$run" "$tmp/other.h5" "$tmp/k.key" "$tmp/book.epd" "$tmp/book.pgn" "$tmp/w.weights")
for f in "${kept[@]}"; do cp "$f" "$f.orig"; done

# unchanged: whether every kept file is as it was; a changed one is put back, so that
# one failure does not spread to the cases after it.
unchanged() {
    local f ok=0
    for f in "${kept[@]}"; do
        if ! cmp -s "$f" "$f.orig"; then
            echo "# $f changed"
            cp "$f.orig" "$f"
            ok=1
        fi
    done
    return $ok
}

# refused NAME TEXT COMMAND...: COMMAND exits non-zero, says TEXT ("" for anything), and
# every kept file is unchanged.
refused() {
    local name=$1 want=$2 rc
    shift 2
    (cd "$tmp" && timeout -k 5 120 "$@") >"$tmp/refused.txt" 2>&1
    rc=$?
    local changed
    changed=$(unchanged)
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ -z "$changed" ] && grep -qF -- "$want" "$tmp/refused.txt"
    check "$name" $? "$(echo "status $rc$changed"; cat "$tmp/refused.txt")"
}
new=$tmp/new.h5
coord_args=(--bind 'tcp://127.0.0.1:*' --nodes 300)

section "setup"
# ---- the coordinator ----
refused "--out RUN with other settings: refused, the run file untouched" \
    "differs from the run's stored" "$coord" "${coord_args[@]}" --out "$run" --nodes 999
refused "--out INPUT (the openings file): refused" "exists and is not a run file" \
    "$coord" "${coord_args[@]}" --openings "$tmp/book.epd" --out "$tmp/book.epd"
refused "--out RUN -pgnout RUN: refused" "is also an input of this command" \
    "$coord" "${coord_args[@]}" --out "$run" -pgnout "$run"
refused "-pgnout OTHER-RUN: refused" "is an HDF5 run file" \
    "$coord" "${coord_args[@]}" --out "$new" -pgnout "$tmp/other.h5"
refused "-pgnout INPUT (the PGN openings): refused" "is also an input of this command" \
    "$coord" "${coord_args[@]}" --out "$new" -openings file="$tmp/book.pgn" -pgnout "$tmp/book.pgn"
refused "--pgnout INPUT (the weights): refused" "is also an input of this command" \
    "$coord" "${coord_args[@]}" --out "$new" --weights "$tmp/w.weights" --pgnout "$tmp/w.weights"
refused "--ack-log RUN: refused" "is also an input of this command" \
    "$coord" "${coord_args[@]}" --out "$run" --ack-log "$run"
refused "--ack-log OTHER-RUN: refused" "is an HDF5 run file" \
    "$coord" "${coord_args[@]}" --out "$new" --ack-log "$tmp/other.h5"
refused "--ack-log INPUT (the openings): refused" "is also an input of this command" \
    "$coord" "${coord_args[@]}" --out "$new" --openings "$tmp/book.epd" --ack-log "$tmp/book.epd"
refused "--ack-log INPUT (the weights): refused" "is also an input of this command" \
    "$coord" "${coord_args[@]}" --out "$new" --weights-black "$tmp/w.weights" \
    --ack-log "$tmp/w.weights"
refused "export -o RUN (its input): refused" "is also an input of this command" \
    "$coord" export plain "$run" -o "$run"
refused "export -o OTHER-RUN, even with --force: refused" "is an HDF5 run file" \
    "$coord" export pgn "$run" -o "$tmp/other.h5" --force
refused "export >> RUN (the standard output is the run file): refused" "is the run file" \
    sh -c "'$coord' export plain '$run' >>'$run'"
refused "export >> OTHER-RUN: refused" "is an HDF5 run file" \
    sh -c "'$coord' export pgn '$run' >>'$tmp/other.h5'"
refused "keygen over a run file: refused" "is an HDF5 run file" "$coord" keygen "$tmp/k"
[ ! -e "$new" ] && [ ! -e "$tmp/k.pub" ]
check "no refused command left a file" $? "$(ls "$tmp")"
"$coord" export pgn "$run" -o "$tmp/x.pgn" 2>/dev/null &&
    ! "$coord" export pgn "$run" -o "$tmp/x.pgn" 2>"$tmp/x.err" &&
    grep -q 'the file exists (give --force' "$tmp/x.err" &&
    "$coord" export pgn "$run" -o "$tmp/x.pgn" --force 2>/dev/null &&
    [ "$(grep -c '^\[Event' "$tmp/x.pgn")" = 2 ]
check "export -o replaces an existing file only with --force" $? "$tmp/x.err"
section "coordinator"

# ---- chuhe-engine and chuhe-tune ----
refused "chuhe-engine weights RUN: refused" "is an HDF5 run file" "$engine" weights "$run"
# (every position trains: the run has two games)
tune_args=(--epochs 1 -q --valid-frac 0 --log "$tmp/t.tsv" --plot "$tmp/t.png" --checkpoint "$tmp/t.ckpt")
(cd "$tmp" && timeout -k 5 120 "$tune" "${tune_args[@]}" -o "$tmp/t.weights" "$run") \
    >"$tmp/tune.txt" 2>&1
[ $? -eq 0 ] && [ -s "$tmp/t.weights" ] && [ -s "$tmp/t.tsv" ] && rm -f "$tmp"/t.*
check "chuhe-tune writes its outputs to new files (so that the refusals below mean one)" $? \
    "$tmp/tune.txt"
refused "chuhe-tune -o RUN (its input): refused" "" "$tune" "${tune_args[@]}" -o "$run" "$run"
refused "chuhe-tune -o OTHER-RUN: refused" "" "$tune" "${tune_args[@]}" -o "$tmp/other.h5" "$run"
refused "chuhe-tune --log RUN: refused" "" \
    "$tune" --epochs 1 -q --valid-frac 0 -o "$tmp/t1.weights" --log "$run" "$run"
refused "chuhe-tune --plot RUN: refused" "" \
    "$tune" --epochs 1 -q --valid-frac 0 -o "$tmp/t2.weights" --plot "$run" "$run"
refused "chuhe-tune --checkpoint RUN: refused" "" \
    "$tune" --epochs 1 -q --valid-frac 0 -o "$tmp/t3.weights" --checkpoint "$run" "$run"
refused "chuhe-tune -o INPUT (its --weights): refused" "" \
    "$tune" "${tune_args[@]}" --weights "$tmp/w.weights" -o "$tmp/w.weights" "$run"
section "engine and tuner"

# ---- the scripts ----
refused "chuhe-run --out RUN -pgnout RUN: refused" "is also an input of this command" \
    "$scripts/chuhe-run" --bindir "$bindir" --out "$run" -pgnout "$run"
(cd "$tmp" && timeout -k 5 120 "$scripts/chuhe-run" --bindir "$bindir" --games 2 --nodes 500 \
    --out pg.h5 -pgnout pg.h5) >"$tmp/pg.txt" 2>&1
[ $? -ne 0 ] && [ ! -e "$tmp/pg.h5" ] && grep -q 'is also an input of this command' "$tmp/pg.txt"
check "chuhe-run --out pg.h5 -pgnout pg.h5: refused before a run file exists" $? "$tmp/pg.txt"
refused "tune-loop --out RUN: refused" "" \
    "$scripts/tune-loop" --bindir "$bindir" -n 1 --games 2 --out "$run"
refused "tune-loop --weights W --out W: refused" "" \
    "$scripts/tune-loop" --bindir "$bindir" -n 1 --games 2 --weights "$tmp/w.weights" \
    --out "$tmp/w.weights"
# the default run of chuhe-run links out/run.h5 to its file: never over a real file
mkdir -p "$tmp/latest/out" && cp "$run" "$tmp/latest/out/run.h5"
(cd "$tmp/latest" && timeout -k 5 120 "$scripts/chuhe-run" --bindir "$bindir" --games 2 \
    --nodes 300 --max-plies 100) >"$tmp/latest.txt" 2>&1
lrc=$?
[ $lrc -eq 0 ] && cmp -s "$run" "$tmp/latest/out/run.h5" && [ ! -L "$tmp/latest/out/run.h5" ] &&
    grep -q 'out/run.h5 is a file, not a link: left as it is' "$tmp/latest.txt"
check "chuhe-run leaves a run file at out/run.h5 alone (it only ever replaces a link)" $? \
    "$(echo "status $lrc"; cat "$tmp/latest.txt")"
# chuhe-run's default limit (8000 nodes) only fills in for a run given no limit: a clock
# is the games' only limit
(cd "$tmp/latest" && timeout -k 5 120 "$scripts/chuhe-run" --bindir "$bindir" --games 2 \
    --tc 1+0.02 --max-plies 40 --out tc.h5) >"$tmp/tc.txt" 2>&1
[ $? -eq 0 ] && grep -aq '"nodes":0,' "$tmp/latest/tc.h5" && grep -aq '"tc":"1+0.02"' "$tmp/latest/tc.h5"
check "chuhe-run --tc: the clock alone limits the games (no default node limit added)" $? \
    "$tmp/tc.txt"
section "scripts"

# ---- a failed start leaves nothing behind ----
e2e_start_coord occupant --bind 'tcp://127.0.0.1:*' --out "$tmp/occupant.h5" --nodes 300
timeout 30 "$coord" --bind "$ep" --out "$new" --ack-log "$tmp/ack.log" >"$tmp/busy.txt" 2>&1
brc=$?
kill -TERM "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null
[ $brc -ne 0 ] && [ ! -e "$new" ] && [ ! -e "$tmp/ack.log" ] && grep -q 'cannot bind' "$tmp/busy.txt"
check "a port in use: no run file, no ack log left" $? "$(cat "$tmp/busy.txt"; ls "$tmp")"
timeout 30 "$coord" "${coord_args[@]}" --out "$new" --ack-log "$tmp/none/ack.log" \
    >"$tmp/nolog.txt" 2>&1
[ $? -eq 2 ] && [ ! -e "$new" ] && grep -q -- '--ack-log .*: the folder does not exist' "$tmp/nolog.txt"
check "an --ack-log in a missing folder: refused, no run file" $? "$tmp/nolog.txt"
echo 'not a position' >"$tmp/bad.epd"
timeout 30 "$coord" "${coord_args[@]}" --out "$new" --openings "$tmp/bad.epd" \
    >"$tmp/badbook.txt" 2>&1
[ $? -ne 0 ] && [ ! -e "$new" ] && grep -q 'bad.epd:1' "$tmp/badbook.txt"
check "a bad openings file: refused, no run file" $? "$tmp/badbook.txt"
e2e_start_coord retry --bind 'tcp://127.0.0.1:*' --out "$new" --nodes 2000 \
    --ack-log "$tmp/ack.log"
started=$?
kill -TERM "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null
[ $started -eq 0 ] && grep -q "new run $new" "$tmp/retry.err" &&
    grep -q '"event":"open"' "$tmp/ack.log"
check "the corrected command starts the run (--nodes 2000)" $? "$tmp/retry.err"

# ---- -pgnout appends: a resumed run adds its own games, a game already there stays ----
printf '[Event "mine"]\n[Result "*"]\n\n1. h2e2 *\n' >"$tmp/p.pgn"
e2e_run pgn --games 2 --nodes 300 --max-plies 100 -pgnout "$tmp/p.pgn"
first=$(grep -c '^\[Event' "$tmp/p.pgn" 2>/dev/null)
e2e_run pgn --games 4 -pgnout "$tmp/p.pgn"
[ $rc_c -eq 0 ] && [ "$first" = 3 ] && [ "$(grep -c '^\[Event' "$tmp/p.pgn")" = 5 ] &&
    [ "$(grep -c '^\[Round "2\.' "$tmp/p.pgn")" = 2 ] && head -1 "$tmp/p.pgn" | grep -q mine
check "-pgnout appends each session's games: 2, then 2 more on the resumed run" $? \
    "$(cat "$tmp/pgn.err" "$tmp/p.pgn")"
printf 'some text\n' >"$tmp/notes.txt"
timeout 30 "$coord" "${coord_args[@]}" --out "$new.2" -pgnout "$tmp/notes.txt" >"$tmp/np.txt" 2>&1
[ $? -eq 2 ] && grep -q 'exists and is not PGN' "$tmp/np.txt" && [ ! -e "$new.2" ]
check "-pgnout refuses an existing file that is not PGN" $? "$tmp/np.txt"
section "failed starts, -pgnout"

verify "$run"
[ "$(verify_count games)" = 2 ] && grep -q '^verify .*: OK$' "$tmp/verify.txt" && unchanged
check "the run file still verifies and is byte for byte the same" $? "$tmp/verify.txt"
e2e_end
