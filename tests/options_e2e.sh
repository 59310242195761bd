#!/usr/bin/env bash
# Options end to end: every numeric option of the coordinator (its long options, found in
# its --help, the per-engine ones, the cutechess-style options and their keys, the
# subcommands) and of the worker given bad values (not a number, empty, trailing letters,
# an exponent for a whole number, below the range, past it): each is refused with exit
# status 2 and one line naming the option, before anything is written. Also the words
# of the messages that say what to fix: --out in a missing folder, in /proc, over a
# dangling link or empty; values that start with '-' read as values; -sprt's keys;
# `export --max-score` (0 is no limit, as in chuhe-tune); a full standard output (the
# coordinator's subcommands, chuhe-engine); the
# worker's endpoint checked on every rank without MPI_ABORT; a peer that is no chuhe
# coordinator (one that speaks no ZeroMQ, one that sends what does not decode).
# Prints TAP. Usage: tests/options_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
# the worker refusing its options runs as an MPI singleton: no helper daemon for each
export OMPI_MCA_ess_singleton_isolated=1

# ---- the table: an option, the words around its value, the name its error carries ----
# kind i: a whole number, d: a real number. "@" in the words is where the value goes.
rows=()
while read -r opt arg _; do
    case $arg in
    N | MS | MB | CP | PLY | BYTES) rows+=("i|$opt @|$opt") ;;
    S) [ "$opt" = --seed ] && rows+=("i|$opt @|$opt") || rows+=("d|$opt @|$opt") ;;
    esac
    case $opt in --rate-limit | --rate-burst) rows[${#rows[@]} - 1]="d|$opt @|$opt" ;; esac
done < <("$coord" --help | sed -n '/^Options:/,$p')
rows+=(
    "i|--engines 3 --nodes-2 @|--nodes-2" "i|--engines 9 --depth-8 @|--depth-8"
    "i|--engines 32 --movetime-31 @|--movetime-31"
    "d|--tc @|--tc" "d|--tc 10+@|--tc" "d|--nodes 100 --tc-black @|--tc-black"
    "i|-rounds @|-rounds" "i|-games @|-games" "i|-maxmoves @|-maxmoves"
    "i|-ratinginterval @|-ratinginterval" "i|-concurrency @|-concurrency" "i|-repeat @|-repeat"
    "i|-resign movecount=@ score=500|-resign movecount" "i|-resign movecount=3 score=@|-resign score"
    "i|-draw movenumber=@ movecount=3 score=10|-draw movenumber"
    "i|-draw movecount=@ score=10|-draw movecount" "i|-draw movecount=3 score=@|-draw score"
    "i|-openings file=$root/data/openings.epd start=@|-openings start"
    "i|-openings file=$root/data/openings.epd format=pgn plies=@|-openings plies"
    "i|-openings file=$root/data/openings.epd seed=@|-openings seed"
    "i|-each nodes=@|-each nodes" "i|-each depth=@|-each depth" "d|-each st=@|-each st"
    "i|-each nodes=100 timemargin=@|-each timemargin" "i|-each nodes=100 hash=@|-each hash"
    "d|-each tc=@|-each tc" "i|-engine name=a builtin nodes=@ -engine name=b builtin|-engine nodes"
    "d|-engine name=a builtin -engine name=b builtin st=@|-engine st"
    "s|-sprt elo0=@ elo1=5|sprt" "s|--sprt elo0=0,elo1=5,alpha=@|sprt"
)
# bad values of a whole number (i), a real number (d), an SPRT key (s: -1 is an Elo)
bad_i=(abc '' 12abc 1e3 1.5 ' 7' -1 99999999999999999999)
bad_d=(abc '' 12abc 0x10 inf ' 7' -1 1e999)
bad_s=(abc '' 12abc 0x10 inf 1e999)
e2e_begin "options end to end" $((${#rows[@]} + 35)) "$coord" "$worker" "$bindir/chuhe-engine"
out=$tmp/none/run.h5 # a coordinator that takes a bad value by mistake stops at --out

for row in "${rows[@]}"; do
    IFS='|' read -r kind words name <<<"$row"
    case $kind in i) bad=("${bad_i[@]}") ;; d) bad=("${bad_d[@]}") ;; s) bad=("${bad_s[@]}") ;; esac
    fails=
    for v in "${bad[@]}"; do
        [ "$name" = --seed ] && [ "$v" = 99999999999999999999 ] && v=99999999999999999999999
        # an empty --tc is no clock, as a run without one stores it
        case "$words|$v" in "--tc @|" | "--nodes 100 --tc-black @|") continue ;; esac
        args=()
        for w in $words; do [ "$w" = @ ] && args+=("$v") || args+=("${w//@/$v}"); done
        timeout 20 "$coord" --bind 'tcp://127.0.0.1:*' --out "$out" "${args[@]}" >"$tmp/o.txt" 2>&1
        rc=$?
        lines=$(grep -c . "$tmp/o.txt")
        if [ $rc -ne 2 ] || [ "$lines" != 1 ] || ! grep -qF -- "$name" "$tmp/o.txt" ||
            ! grep -qF -- "'$v'" "$tmp/o.txt"; then
            fails+="'$v': status $rc: $(cat "$tmp/o.txt")"$'\n'
        fi
    done
    check "$words: ${#bad[@]} bad values refused, exit 2, one line naming $name" \
        "$([ -z "$fails" ]; echo $?)" "$fails"
done
[ ! -e "$tmp/none" ]
check "no refused command made a file" $? "$(ls -R "$tmp")"
section "coordinator: ${#rows[@]} numeric options"

# ---- the subcommands ----
fails=
for v in "${bad_i[@]}"; do
    "$coord" export plain "$tmp/no.h5" --max-score "$v" >"$tmp/o.txt" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -qF -- "--max-score: '$v'" "$tmp/o.txt" || fails+="'$v': status $rc: $(cat "$tmp/o.txt")"$'\n'
done
check "export plain --max-score: bad values refused, exit 2, naming the option" \
    "$([ -z "$fails" ]; echo $?)" "$fails"
fails=
for args in "--penta 1,x,3,4,5" "--penta 1,-2,3,4,5" "--wdl 1,2" "--wdl 1,2,99999999999999999999"; do
    # shellcheck disable=SC2086 # words by design
    "$coord" stats $args >"$tmp/o.txt" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q -- "${args%% *}" "$tmp/o.txt" || fails+="$args: status $rc: $(cat "$tmp/o.txt")"$'\n'
done
check "stats --penta/--wdl: bad counts refused, exit 2, naming the option" \
    "$([ -z "$fails" ]; echo $?)" "$fails"

# ---- the words of the messages ----
message() { # NAME STATUS TEXT ARGS...: the coordinator exits STATUS and says TEXT
    local name=$1 want=$2 text=$3
    shift 3
    timeout 20 "$coord" --bind 'tcp://127.0.0.1:*' "$@" >"$tmp/m.txt" 2>&1
    local rc=$?
    [ $rc -eq "$want" ] && grep -qF -- "$text" "$tmp/m.txt"
    check "$name" $? "$(echo "status $rc"; cat "$tmp/m.txt")"
}
message "--nodes -1: the value of --nodes, out of range" 2 "--nodes: '-1' is out of range (allowed: 0..4000000000)" \
    --out "$out" --nodes -1
message "--tc -5+1: the base of --tc, out of range" 2 "--tc base: '-5' is out of range (allowed: 0.001..86400)" \
    --out "$tmp/tc.h5" --tc -5+1
message "--draw-score -5: the value of --draw-score" 2 "--draw-score: '-5' is out of range" \
    --out "$out" --draw-score -5
message "--sprt garbage: which keys there are" 2 "key elo0, elo1, alpha, beta or model (e.g. elo0=0 elo1=5), got 'garbage'" \
    --out "$tmp/sprt.h5" --sprt garbage
# the options as the user wrote them, not the long options they become
message "--weights FILE: named --weights (not --weights-red)" 2 "--weights '$tmp/no.weights': No such file" \
    --out "$out" --weights "$tmp/no.weights"
message "-engine weights=FILE: named as the engine's weights= (not --weights-red)" 2 \
    "-engine weights (engine 2) '$tmp/no.weights': No such file" \
    --out "$out" -engine builtin -engine builtin weights="$tmp/no.weights" -each depth=2
message "-engine proto=: named as the engine's proto= (not --proto-black)" 2 \
    "-engine proto (engine 2): 'xyz' is not uci" \
    --out "$out" -engine builtin -engine cmd=/bin/true proto=xyz -each depth=2
message "-each nodes=0 is refused (0 would leave the default 10000 nodes)" 2 \
    "-each nodes: '0' is out of range (allowed: 1..4000000000)" \
    --out "$out" -engine builtin -engine builtin -each nodes=0
message "--nodes 0 is refused (0 would leave the default 10000 nodes)" 2 \
    "--nodes: 0 is not a limit (give 1 or more, or leave the option out)" --out "$out" --nodes 0
message "--depth-black 0 is refused" 2 "--depth-black: 0 is not a limit" --out "$out" --depth-black 0
message "-engine depth=0 is refused" 2 "-engine depth: '0' is out of range (allowed: 1.." \
    --out "$out" -engine builtin depth=0 -engine builtin -each nodes=10
message "-engine cmd= with nothing after it is refused" 2 \
    "-engine cmd: '' is empty (give a value, or leave cmd= out)" \
    --out "$out" -engine builtin -engine cmd= -each depth=2
message "--out in a missing folder" 2 "--out $tmp/none/run.h5: the folder does not exist (create it first)" \
    --out "$out"
message "--out ''" 2 "--out: empty path (give a file name)" --out ''
ln -s "$tmp/nowhere.h5" "$tmp/dangling.h5"
message "--out over a dangling link" 2 "--out $tmp/dangling.h5: a link to a file that does not exist" \
    --out "$tmp/dangling.h5"
mkdir "$tmp/folder.h5"
message "--out naming a folder" 2 "--out $tmp/folder.h5: is a folder" --out "$tmp/folder.h5"
timeout 20 "$coord" --bind 'tcp://127.0.0.1:*' --out /proc/chuhe-run.h5 >"$tmp/proc.txt" 2>&1
[ $? -eq 1 ] && grep -q '/proc/chuhe-run.h5: \(cannot create: the folder takes no new files\|the folder is not writable\)' "$tmp/proc.txt"
check "--out in /proc: the folder takes no new files" $? "$tmp/proc.txt"
[ ! -e "$tmp/tc.h5" ] && [ ! -e "$tmp/sprt.h5" ] && [ ! -L "$tmp/nowhere.h5" ] && [ ! -e "$tmp/nowhere.h5" ]
check "no refused start made a file" $? "$(ls "$tmp")"
section "subcommands and messages"

# ---- a run file for export and verify ----
e2e_run r --games 2 --nodes 300 --max-plies 100 --seed 5
run=$tmp/r.h5
check "a run to export" $((rc_c != 0 || rc_w != 0)) "$tmp/r.err"
"$coord" export plain "$run" --max-score 0 >"$tmp/zero.plain" 2>/dev/null
"$coord" export plain "$run" --max-score 1 >"$tmp/one.plain" 2>/dev/null
zero=$(grep -c '^score ' "$tmp/zero.plain")
one=$(grep -c '^score ' "$tmp/one.plain")
all=$("$coord" export plain "$run" 2>/dev/null | grep -c '^score ')
[ "$zero" = "$all" ] && [ "$one" -lt "$all" ] && [ "$all" -gt 0 ]
check "export --max-score 0 is no limit ($zero of $all kept), as in chuhe-tune; --max-score 1 keeps $one" $?
"$coord" verify "$run" >/dev/full 2>"$tmp/full.txt"
[ $? -eq 1 ] && grep -q 'writing the standard output failed: No space left on device' "$tmp/full.txt"
check "verify > /dev/full: exit status 1, said" $? "$tmp/full.txt"
"$coord" export pgn "$run" >/dev/full 2>"$tmp/full.txt"
[ $? -eq 1 ]
check "export pgn > /dev/full: exit status 1" $? "$tmp/full.txt"
"$coord" stats --wdl 1,2,3 >/dev/full 2>/dev/null
[ $? -eq 1 ] && ! "$coord" --help >/dev/full 2>/dev/null
check "stats and --help > /dev/full: exit status 1" $?
"$bindir/chuhe-engine" go perft 1 >/dev/full 2>"$tmp/full.txt"
[ $? -eq 1 ] && grep -q '^chuhe-engine: writing the standard output failed' "$tmp/full.txt"
check "chuhe-engine go perft 1 > /dev/full: exit status 1" $? "$tmp/full.txt"
section "export and verify"

# ---- the worker ----
w_run() { # worker options...: two ranks under mpirun, output in $tmp/w.txt, status in wrc
    timeout -k 5 60 mpirun --oversubscribe --bind-to none "${mpi_env[@]}" -np 2 "$worker" "$@" \
        >"$tmp/w.txt" 2>&1
    wrc=$?
}
fails=
for v in "${bad_d[@]}" 0; do
    w_run --connect tcp://127.0.0.1:9 --timeout "$v"
    grep -qF -- "chuhe-worker: --timeout: '$v'" "$tmp/w.txt" && grep -q '(allowed: 0.1..86400)' "$tmp/w.txt" ||
        fails+="'$v': $(cat "$tmp/w.txt")"$'\n'
done
check "worker --timeout: bad values (0 too) refused with the range, on every rank" \
    "$([ -z "$fails" ]; echo $?)" "$fails"
for ep in garbage tcp://127.0.0.1 'tcp://*:5555' tcp://127.0.0.1:0 tcp://127.0.0.1:x ipc://; do
    w_run --connect "$ep" --timeout 5
    [ "$(grep -cF "chuhe-worker: --connect '$ep': " "$tmp/w.txt")" = 1 ] &&
        ! grep -q 'MPI_ABORT\|fatal' "$tmp/w.txt" && grep -q 'Exit code: *2' "$tmp/w.txt"
    check "worker --connect '$ep': one line saying what to fix, exit 2, no MPI_ABORT" $? "$tmp/w.txt"
done
CHUHE_COORDINATOR=nonsense timeout -k 5 60 mpirun --oversubscribe --bind-to none "${mpi_env[@]}" \
    -x CHUHE_COORDINATOR -np 2 "$worker" >"$tmp/w.txt" 2>&1
grep -q "CHUHE_COORDINATOR 'nonsense': not tcp://HOST:PORT or ipc://PATH" "$tmp/w.txt"
check "worker: a bad CHUHE_COORDINATOR named as such" $? "$tmp/w.txt"

# peers that are no chuhe coordinator: one that answers text (no ZeroMQ at all), one that
# looks like an old ZeroMQ peer and sends what does not decode
if command -v python3 >/dev/null; then
    for reply in 'garbage\n' 'HTTP/1.1 200 OK\r\n'; do
        python3 - "$reply" >"$tmp/port.txt" <<'PY' &
import socket, sys, threading
data = sys.argv[1].encode().decode("unicode_escape").encode("latin-1") * 20
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(8)
print(srv.getsockname()[1], flush=True)
def answer(c):
    try:
        c.sendall(data)
        c.recv(100)
    except OSError:
        pass
    c.close()
while True:
    threading.Thread(target=answer, args=(srv.accept()[0],), daemon=True).start()
PY
        ppid=$!
        wait_line "$tmp/port.txt" '[0-9]' 10
        t0=$(date +%s)
        w_run --connect "tcp://127.0.0.1:$(cat "$tmp/port.txt")" --timeout 60
        t1=$(date +%s)
        kill "$ppid" 2>/dev/null
        wait "$ppid" 2>/dev/null
        [ $wrc -eq 1 ] && [ $((t1 - t0)) -lt 30 ] && grep -q 'is not a chuhe coordinator' "$tmp/w.txt" &&
            ! grep -q 'requires CURVE' "$tmp/w.txt"
        check "a server answering '$reply' is not a chuhe coordinator (said at once, not 'requires CURVE')" $? \
            "$(echo "port '$(cat "$tmp/port.txt")', status $wrc after $((t1 - t0)) s:"; tail -20 "$tmp/w.txt")"
    done
else
    skip "a server answering text is not a chuhe coordinator" "python3 missing"
    skip "a server sending what does not decode is not a chuhe coordinator" "python3 missing"
fi
section "worker"
e2e_end
