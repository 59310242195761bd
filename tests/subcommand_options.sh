#!/usr/bin/env bash
# The command lines of the coordinator's subcommands and of the programs, read by the one
# option parser (engine/cliopt.h): each subcommand answers --help from its table (status
# 0, its usage line, its options); an unknown option, a missing value, a value for a
# flag or a word too many is one line in the one form, status 2; the main --help lists
# the tournament options and the long options from their tables. No run file needed.
# Prints TAP lines. Usage: tests/subcommand_options.sh <bindir>
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/tap.sh"
coord=$bindir/chuhe-coordinator
tap_require "$coord" "$bindir/chuhe-worker" "$bindir/chuhe-tune" "$bindir/chuhe-engine"

# MPI's own allocations outlive the worker: the sanitizer build's leak check is left to
# tests/leaks_e2e.sh, as in the end-to-end tests (support/e2e.sh)
case $bindir in san | */san | */san/) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run ARGS...: the program, its standard output in $out, standard error in $err, $rc
run() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}

# ---- --help of every subcommand, from its table ----
for words in "export plain" "export" "verify" "report" "spsa-report" "stats" "keygen"; do
    name=${words%% *}
    # shellcheck disable=SC2086 # words by design
    run "$coord" $words --help
    [ $rc = 0 ] && [ -z "$err" ] && grep -q "^usage: chuhe-coordinator $name" <<<"$out" &&
        grep -q -- '-h, --help' <<<"$out"
    check "$words --help: its usage and options, status 0" $? "status $rc: $out$err"
done
run "$coord" export pgn --help
grep -q -- '--no-comments' <<<"$out" && ! grep -q -- '--max-score' <<<"$out"
check "export pgn --help: the options of PGN only" $? "$out"

# ---- one line, one form, status 2 ----
refused() { # NAME TEXT ARGS...: status 2 and exactly the line TEXT on stderr, nothing on stdout
    local name=$1 text=$2
    shift 2
    run "$coord" "$@"
    [ $rc = 2 ] && [ -z "$out" ] && [ "$err" = "$text" ]
    check "$name" $? "status $rc: $out$err"
}
refused "verify --nosuch" \
    "chuhe-coordinator verify: unknown option '--nosuch' (chuhe-coordinator verify --help lists the options)" \
    verify --nosuch r.h5
refused "verify with two files" \
    "chuhe-coordinator verify: unexpected word 'b.h5' (chuhe-coordinator verify --help lists the options)" \
    verify a.h5 b.h5
refused "verify without a file" \
    "chuhe-coordinator verify: give RUN.h5 (usage: chuhe-coordinator verify RUN.h5)" verify
refused "export plain --max-score without a value" \
    "chuhe-coordinator export plain: --max-score: needs a whole number (allowed: 0..32767)" \
    export plain r.h5 --max-score
refused "export pgn --max-score: an option of plain only" \
    "chuhe-coordinator export pgn: unknown option '--max-score' (chuhe-coordinator export pgn --help lists the options)" \
    export pgn r.h5 --max-score 5
refused "export --force=yes: a flag takes no value" \
    "chuhe-coordinator export plain: --force: takes no value, got 'yes'" \
    export plain r.h5 --force=yes
refused "export with a format that is none" \
    "chuhe-coordinator export: 'csv' is not plain or pgn (usage: chuhe-coordinator export plain|pgn RUN.h5 [options] [-o FILE [--force]])" \
    export csv r.h5
refused "report without --out" \
    "chuhe-coordinator report: give --out DIR (usage: chuhe-coordinator report RUN.h5 --out DIR [--force])" \
    report r.h5
refused "spsa-report --plot without a value" \
    "chuhe-coordinator spsa-report: --plot: needs a value (FILE.png)" spsa-report r.h5 --plot
refused "stats --wdl twice" \
    "chuhe-coordinator stats: give one of --penta and --wdl, once" stats --wdl 1,2,3 --wdl 1,2,3
refused "keygen -x" \
    "chuhe-coordinator keygen: unknown option '-x' (chuhe-coordinator keygen --help lists the options)" \
    keygen -x
refused "a run's unknown option" \
    "chuhe-coordinator: unknown option '--nosuch' (chuhe-coordinator --help lists the options)" \
    --out "$tmp/none/r.h5" --nosuch
refused "a run's -engine with an unknown key" \
    "chuhe-coordinator: -engine: unknown key 'nodez' (allowed: name, cmd, args, dir, proto, weights, builtin, ponder, option., tc, st, nodes, depth, timemargin)" \
    --out "$tmp/none/r.h5" -engine builtin nodez=3 -engine builtin
refused "a clock of moves per period: not kept by the worker" \
    "chuhe-coordinator: --tc: '40/60+0.6' gives moves per period, which this clock does not keep (allowed: BASE[+INC] in seconds, e.g. 10+0.1)" \
    --out "$tmp/none/r.h5" --tc 40/60+0.6
[ ! -e "$tmp/none" ]
check "no refused command wrote a file" $? "$(ls "$tmp")"

# ---- the programs' --help, from their tables ----
run "$coord" --help
grep -q '^  -concurrency N ' <<<"$out" && grep -q '^  -engine KEY=V ' <<<"$out" &&
    grep -q '^  --heartbeat-timeout S ' <<<"$out" && [ $rc = 0 ]
check "chuhe-coordinator --help: the tournament options and the long options" $? "$out"
run "$bindir/chuhe-worker" --help
[ $rc = 0 ] && grep -q '^  --timeout S ' <<<"$out"
check "chuhe-worker --help: its options" $? "$out$err"
run "$bindir/chuhe-worker" --timeout
[ $rc = 2 ] && [ "$err" = "chuhe-worker: --timeout: needs a number (allowed: 0.1..86400)" ]
check "chuhe-worker --timeout without a value: one line" $? "status $rc: $err"
run "$bindir/chuhe-engine" --version=1
[ $rc = 2 ] && [ "$err" = "chuhe-engine: --version: takes no value, got '1'" ]
check "chuhe-engine --version=1: one line" $? "status $rc: $err"
tap_end
