#!/usr/bin/env bash
# SPSA end to end on `mpirun -np 2` workers: a 30-pair run of the built-in engine against
# itself over four search constants, whose final values and trajectory plot are written
# and whose run file spsa-report reads back; the same run again writes a byte-identical
# final file; a run whose coordinator is killed with SIGKILL half-way and restarted on its
# run file ends with that file too; the same run with bin/chuhe-engine as an external UCI
# engine; a short run over a spin option of Fairy-Stockfish (proto=uci1); and the runs
# that must not start (an unknown parameter, bad bounds, a value outside them, an
# external engine without the option, two engines, an SPRT, a run file of another kind).
# Prints TAP. Usage: tests/spsa_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
uci=$(cd "$bindir" && pwd)/chuhe-engine
fsf=/usr/games/fairy-stockfish
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "SPSA end to end" 14 "$coord" "$worker" "$uci"
nodes=300
[ "$san" = 1 ] && nodes=150

# Four constants started away from their defaults, with learning rates high enough for
# thirty pairs to move them by several units (fishtest's usual r_end, 0.002, would not).
cat >"$tmp/params.txt" <<'EOF'
# name, type, start, min, max, c_end, r_end
rfp_margin, int, 150, 20, 300, 8, 0.2
lmr_base, int, 120, 0, 200, 10, 0.2
fut_base, int, 60, 0, 400, 10, 0.2
asp_delta, 50, 5, 200, 3, 0.5
EOF
# The exact theta of every parameter in a run's summary.
thetas() { summary "$1" | grep -o '"theta":[-0-9.e]*' | tr '\n' ' '; }
run_args=(-each nodes=$nodes -maxmoves 60)
spsa_words=(params="$tmp/params.txt" pairs=30 seed=7 window=4)

# ---- a run, and the same run again ----
e2e_run a -engine name=chuhe builtin "${run_args[@]}" -spsa "${spsa_words[@]}" out="$tmp/a.txt"
iters=$(summary a | grep -o '"spsa":{"iterations":[0-9]*' | grep -o '[0-9]*$')
[ $rc_c = 0 ] && [ $rc_w = 0 ] && [ "$iters" = 30 ] &&
    [ "$(grep -cE '^[a-z_]+, int, [0-9]+, [0-9]+, [0-9]+, [0-9.]+, 0.[25]$' "$tmp/a.txt")" = 4 ] &&
    ! grep -q '^rfp_margin, int, 150, ' "$tmp/a.txt"
check "30 pairs, 30 iterations; the final values in fishtest's format (out=)" $? \
    "$(cat "$tmp/a.err" "$tmp/a.txt" 2>/dev/null)"
progress=$(grep '"event":"progress"' "$tmp/a.out" | tail -1)
grep -q '"spsa":{"iterations":[0-9]*,"pairs":30,"params":\[{"name":"rfp_margin","value":' \
    <<<"$progress" && grep -q '"name":"asp_delta"' <<<"$progress" &&
    grep -q '| spsa [0-9]*/30 rfp_margin ' "$tmp/a.err"
check "the live line shows the iteration and parameters; --json progress has every parameter" $? \
    "$progress"
if command -v gnuplot >/dev/null; then
    [ "$(head -c 4 "$tmp/a.txt.png" | od -An -c | tr -d ' ')" = '211PNG' ]
    check "a PNG of every parameter's trajectory (out= + .png)" $? "$tmp/a.err"
else
    skip "the trajectory PNG" "gnuplot missing"
fi
"$coord" spsa-report "$tmp/a.h5" >"$tmp/a.report" 2>"$tmp/a.report.err"
cmp -s "$tmp/a.report" "$tmp/a.txt" && verify_pairs "$tmp/a.h5" 60 30
check "spsa-report prints the final file from the run file; every game replays" $? \
    "$(cat "$tmp/a.report" "$tmp/a.report.err" "$tmp/verify.txt")"

e2e_run b -engine name=chuhe builtin "${run_args[@]}" -spsa "${spsa_words[@]}" out="$tmp/b.txt"
[ $rc_c = 0 ] && cmp -s "$tmp/a.txt" "$tmp/b.txt" && [ "$(thetas a)" = "$(thetas b)" ]
check "the same seed again: a byte-identical final file (and the same exact thetas)" $? \
    "$(diff "$tmp/a.txt" "$tmp/b.txt"; thetas a; thetas b)"

# ---- killed with SIGKILL half-way, restarted on its run file ----
: >"$tmp/c1.out" # e2e_start_coord reads it at once
e2e_start_coord c1 --bind 'tcp://127.0.0.1:*' --progress-interval 0.2 --out "$tmp/c.h5" \
    -engine name=chuhe builtin "${run_args[@]}" -spsa "${spsa_words[@]}" out="$tmp/c.txt"
cep=$ep
timeout -k 5 200 mpirun --oversubscribe --bind-to none ${mpi_env[@]+"${mpi_env[@]}"} -np 2 \
    "$worker" --connect "$cep" --quiet --timeout 60 >"$tmp/c.workers" 2>&1 &
mpid=$!
half() { grep -q '"spsa":{"iterations":\(1[5-9]\|2[0-9]\)' "$tmp/c1.out"; }
for _ in $(seq 600); do
    half && break
    sleep 0.1
done
exec 3>&2 2>/dev/null
kill -KILL "$cpid"
wait "$cpid"
killed=$?
exec 2>&3 3>&-
"$coord" spsa-report "$tmp/c.h5" >"$tmp/c.report" 2>"$tmp/c.report.err"
rrc=$?
[ $killed = 137 ] && [ $rrc = 0 ] && [ "$(wc -l <"$tmp/c.report")" = 4 ] && [ ! -e "$tmp/c.txt" ]
check "SIGKILL half-way; spsa-report reads the unfinished run file" $? \
    "$(cat "$tmp/c1.err" "$tmp/c.report.err")"
: >"$tmp/c2.out"
e2e_start_coord c2 --bind "$cep" --progress-interval 0.5 --out "$tmp/c.h5" --spsa-out "$tmp/c.txt"
wait_for "$mpid" 180
wait_for "$cpid" 60
[ $rc = 0 ] && grep -q 'resuming run' "$tmp/c2.err" && cmp -s "$tmp/a.txt" "$tmp/c.txt" &&
    [ "$(thetas a)" = "$(thetas c2)" ]
check "restarted on the run file: the same final file as the run in one go" $? \
    "$(cat "$tmp/c2.err"; diff "$tmp/a.txt" "$tmp/c.txt"; thetas a; thetas c2)"

# ---- bin/chuhe-engine as an external UCI engine ----
e2e_run u -engine name=uci cmd="$uci" proto=uci "${run_args[@]}" -spsa "${spsa_words[@]}" \
    out="$tmp/u.txt"
[ $rc_c = 0 ] && [ $rc_w = 0 ] && [ "$(wc -l <"$tmp/u.txt")" = 4 ]
check "bin/chuhe-engine as an external UCI engine: the run completes" $? "$tmp/u.err"
cmp -s "$tmp/a.txt" "$tmp/u.txt"
check "... with the built-in engine's final values (the same games at a node limit)" $? \
    "$(diff "$tmp/a.txt" "$tmp/u.txt")"

# ---- Fairy-Stockfish over proto=uci1 ----
if [ -x "$fsf" ]; then
    echo 'Slow Mover, int, 100, 50, 200, 10, 0.002' >"$tmp/fsf.txt"
    e2e_run f -engine name=fsf cmd="$fsf" proto=uci1 option.Hash=8 -each nodes=$nodes \
        -maxmoves 40 -spsa params="$tmp/fsf.txt" pairs=3 seed=3 out="$tmp/f.txt"
    [ $rc_c = 0 ] && [ $rc_w = 0 ] &&
        grep -q '^Slow Mover, int, [0-9]*, 50, 200, 10, 0.002$' "$tmp/f.txt"
    check "Fairy-Stockfish (uci1): a short run over its spin option 'Slow Mover'" $? \
        "$(cat "$tmp/f.err" "$tmp/f.workers")"
else
    skip "Fairy-Stockfish (uci1)" "$fsf missing"
fi

# ---- runs that must not start: one line naming the file and line, no run file ----
refused() { # name expected-text coordinator-args...
    local name=$1 want=$2
    shift 2
    timeout 60 "$coord" --bind 'tcp://127.0.0.1:*' --out "$tmp/$name.h5" "$@" \
        </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err"
    local r=$?
    [ $r != 0 ] && [ ! -e "$tmp/$name.h5" ] && grep -qF -- "$want" "$tmp/$name.err"
}
bad() { printf '%s\n' "rfp_margin, int, 150, 20, 300, 8, 0.002" "$1" >"$tmp/bad.txt"; }
ok=0
while IFS='|' read -r line want; do
    bad "$line"
    refused e1 "$want" -engine builtin -spsa params="$tmp/bad.txt" pairs=2 || ok=1
    cat "$tmp/e1.err" >>"$tmp/e1-4.err"
done <<'EOF'
no_such_param, int, 1, 0, 9, 1, 0.002|bad.txt:2: 'no_such_param' is not a search parameter
lmr_base, int, 80, 90, 10, 1, 0.002|bad.txt:2: lmr_base: min 90 is not below max 10
lmr_base, int, 250, 0, 200, 1, 0.002|bad.txt:2: lmr_base: value 250 is outside its bounds 0..200
lmr_base, int, 80, 0, 1000, 1, 0.002|bad.txt:2: lmr_base: bounds 0..1000 exceed the engine's 0..200
EOF
check "a parameter file with an unknown name, a bad bound, a value outside its bounds: refused" \
    $ok "$tmp/e1-4.err"
bad 'NoSuchOption, int, 1, 0, 9, 1, 0.002'
refused e5 "bad.txt:2: engine $uci has no option 'NoSuchOption'" \
    -engine name=uci cmd="$uci" proto=uci -spsa params="$tmp/bad.txt" pairs=2
check "an external engine without the option: refused, naming the file and line" $? "$tmp/e5.err"
ok=0
refused e6 "-spsa tunes one engine against itself: give exactly one -engine, not 2" \
    -engine builtin -engine builtin -spsa params="$tmp/params.txt" pairs=2 || ok=1
refused e7 "-sprt and -spsa exclude each other" \
    -engine builtin -spsa params="$tmp/params.txt" pairs=2 -sprt elo0=0 elo1=5 || ok=1
check "-spsa with two engines, or with -sprt: refused" $ok "$(cat "$tmp"/e[67].err)"

# ---- a run file resumed as another kind of run: one line naming both kinds ----
e2e_start_coord plain --bind 'tcp://127.0.0.1:*' --out "$tmp/plain.h5" --nodes 100 --games 2
kill -TERM "$cpid" 2>/dev/null
wait_for "$cpid" 10
ok=0
"$coord" --bind 'tcp://127.0.0.1:*' --out "$tmp/plain.h5" -engine builtin \
    -spsa params="$tmp/params.txt" pairs=2 </dev/null >/dev/null 2>"$tmp/k1.err" && ok=1
grep -qF "plain.h5: a self-play run; -spsa cannot resume it as an SPSA run" "$tmp/k1.err" || ok=1
"$coord" --bind 'tcp://127.0.0.1:*' --out "$tmp/a.h5" -engine name=x builtin \
    -engine name=y builtin </dev/null >/dev/null 2>"$tmp/k2.err" && ok=1
grep -qF "a.h5: an SPSA run; the command line describes a self-play run" "$tmp/k2.err" || ok=1
check "a self-play file resumed by an SPSA command, and the reverse: refused, naming the kinds" \
    $ok "$(cat "$tmp/k1.err" "$tmp/k2.err")"

e2e_end
