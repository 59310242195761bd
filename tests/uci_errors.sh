#!/usr/bin/env bash
# Mistyped and impossible commands against the real bin/chuhe-engine: each is refused
# with one "info string error: ..." line naming what was wrong, and the engine keeps its
# previous state; a command given on the command line exits 2 when malformed, 1 when it
# could not be carried out. Prints TAP lines. Usage: tests/uci_errors.sh <bindir>
set -u
bindir="${1:-bin}"
bin="$bindir/chuhe-engine"
source "$(dirname "$0")/support/tap.sh"
source "$(dirname "$0")/support/engine.sh"

run() { printf '%b' "$1" | timeout 60 "$bin" 2>&1; }

tap_require "$bin"

tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT

# ---- one-shot commands: the exit status ------------------------------------------------
oneshot() { # expected status, arguments...
    local want=$1 out rc
    shift
    out=$(timeout 60 "$bin" "$@" 2>&1)
    rc=$?
    [ "$rc" = "$want" ] && [ "$(engine_errors "$out")" = 1 ] && [ "$(wc -l <<<"$out")" = 1 ]
    check "chuhe-engine $*: one error line, exit status $want" $? "status $rc: $out"
}
oneshot 2 nonsense
oneshot 2 bench abc
oneshot 2 bench 0
oneshot 2 go perft
oneshot 2 go movetime -100
oneshot 2 setoption name Hash value 0
oneshot 1 weights /nonexistent/x
oneshot 1 setoption name EvalFile value /nonexistent/x

out=$(timeout 60 "$bin" go perft 1 2>&1)
check "chuhe-engine go perft 1: exit status 0" $? "$out"

# --help and --version answer as the other programs do: to stdout, exit status 0
for h in --help -h; do
    out=$(timeout 60 "$bin" $h 2>/dev/null)
    rc=$?
    [ "$rc" = 0 ] && grep -q '^usage: chuhe-engine' <<<"$out" && grep -q 'bench' <<<"$out" &&
        [ "$(engine_errors "$out")" = 0 ]
    check "chuhe-engine $h: usage, exit status 0" $? "status $rc: $out"
done
out=$(timeout 60 "$bin" --version 2>/dev/null)
rc=$?
id=$(run 'uci\nquit\n' | sed -n 's/^id name chuhe //p')
[ "$rc" = 0 ] && [ -n "$id" ] && [ "$out" = "chuhe-engine $id" ]
check "chuhe-engine --version: 'chuhe-engine' and the build's git version ($id), exit status 0" $? \
    "status $rc: $out"
oneshot 2 --frobnicate

# ---- go: every number is checked, a refused go searches nothing -----------------------
# Each refused line names the field and the allowed range, and no search starts.
refused_go() { # go arguments, expected error text (a fixed string)
    local out
    out=$(run "position startpos\ngo $1\nisready\n")
    [ "$(engine_errors "$out")" = 1 ] && grep -qF "info string error: $2" <<<"$out" &&
        ! grep -q '^bestmove' <<<"$out" && grep -q '^readyok$' <<<"$out"
    check "go $1: refused, no search" $? "$out"
}
refused_go "movetime -100" "go movetime: '-100' is out of range (allowed: 1..1099511627776)"
refused_go "movetime 0" "go movetime: '0' is out of range (allowed: 1..1099511627776)"
refused_go "movetime 100abc" "go movetime: '100abc' is not a whole number"
refused_go "wtime 1000 btime 1000 winc -10" "go winc: '-10' is out of range (allowed: 0..1099511627776)"
refused_go "wtime 1000 btime 1000 binc x" "go binc: 'x' is not a whole number"
refused_go "wtime 1e3" "go wtime: '1e3' is not a whole number (allowed: -1099511627776..1099511627776)"
refused_go "wtime 99999999999999999999" "go wtime: '99999999999999999999' is out of range"
refused_go "btime" "go btime: needs a whole number"
refused_go "nodes -5" "go nodes: '-5' is out of range (allowed: 0..1099511627776)"
refused_go "depth 0" "go depth: '0' is out of range (allowed: 1..124)"
refused_go "depth 5x" "go depth: '5x' is not a whole number"
refused_go "movestogo -1" "go movestogo: '-1' is out of range"
refused_go "time 5 increment -1" "go increment: '-1' is out of range (allowed: 0..1099511627776)"
refused_go "perft 2.0" "go perft: '2.0' is not a whole number (allowed: 1..12)"

# A clock below zero is what cutechess sends after a move that overstepped within its
# timemargin (and for a human opponent whose flag fell): it is read as an empty clock,
# and the engine moves at once rather than leaving the GUI without an answer.
out=$(run "position startpos\ngo wtime -1000 btime -1000\nisready\n")
[ "$(engine_errors "$out")" = 0 ] && grep -qE '^bestmove [a-i][0-9][a-i][0-9]' <<<"$out"
check "go wtime -1000 btime -1000: a clock below zero is read as 0, a move comes" $? "$out"

# ---- setoption -------------------------------------------------------------------------
out=$(run "setoption name Hash value 1e3\nsetoption name Hash value 65537\nsetoption name Threads value 257\nsetoption name Move Overhead value -1\nsetoption name Hash\nisready\n")
[ "$(engine_errors "$out")" = 5 ] &&
    grep -qF "setoption Hash: '1e3' is not a whole number (allowed: 1..65536)" <<<"$out" &&
    grep -qF "setoption Hash: '65537' is out of range (allowed: 1..65536)" <<<"$out" &&
    grep -qF "setoption Threads: '257' is out of range (allowed: 1..256)" <<<"$out" &&
    grep -qF "setoption Move Overhead: '-1' is out of range (allowed: 0..5000)" <<<"$out" &&
    grep -qF "setoption Hash: needs a whole number (allowed: 1..65536)" <<<"$out" &&
    grep -q '^readyok$' <<<"$out"
check "setoption: malformed and out-of-range numbers name the option and the range" $? "$out"

# A table that cannot be allocated leaves the one in use, at its size. Address space is
# capped so that the size fails the same way on any machine; a sanitizer build needs
# terabytes of it for its shadow memory, so it is not capped.
case "$bindir" in
*/san | */san/ | san)
    skip "setoption Hash too large for memory: the previous table is kept" "sanitizer build" ;;
*)
    out=$( (ulimit -v 1048576 && run "setoption name Hash value 4096\nsetoption name Hash value 2048\nposition startpos\ngo depth 4\nisready\n") 2>&1)
    [ "$(engine_errors "$out")" = 2 ] &&
        [ "$(grep -cF "; keeping the 16 MB table" <<<"$out")" = 2 ] &&
        grep -qF "setoption Hash: cannot allocate 4096 MB" <<<"$out" &&
        grep -qE '^bestmove [a-i][0-9]' <<<"$out"
    check "setoption Hash too large for memory: the previous table is kept" $? "$out"
    ;;
esac

mkdir "$tmp/folder"
out=$(run "setoption name EvalFile value $tmp/folder\nisready\n")
engine_refuses 1 "$out" \
    "setoption EvalFile: $tmp/folder is a directory; previous evaluation kept"
check "setoption EvalFile <folder>: says it is a directory" $? "$out"

out=$(run "setoption name EvalFile value $tmp/missing.weights\nisready\n")
engine_refuses 1 "$out" "EvalFile: $tmp/missing.weights: No such file or directory"
check "setoption EvalFile <missing file>: names the path and the reason" $? "$out"

if [ "$(id -u)" = 0 ]; then
    skip "setoption EvalFile <unreadable file>: names the path and the reason" "root reads any file"
else
    run "weights $tmp/locked.weights\n" >/dev/null
    chmod 000 "$tmp/locked.weights"
    out=$(run "setoption name EvalFile value $tmp/locked.weights\nisready\n")
    [ "$(engine_errors "$out")" = 1 ] &&
        grep -qF "EvalFile: $tmp/locked.weights: Permission denied" <<<"$out"
    check "setoption EvalFile <unreadable file>: names the path and the reason" $? "$out"
fi

# ---- NUL bytes -------------------------------------------------------------------------
out=$(run '\0isready\nisready\0junk\nisready\n')
[ "$(engine_errors "$out")" = 2 ] && grep -qF 'a command line holds a NUL byte' <<<"$out" &&
    [ "$(grep -c '^readyok$' <<<"$out")" = 1 ]
check "a line holding a NUL byte is refused, at its start or further on" $? "$out"

# ---- the previous state stays ------------------------------------------------------------
fen='Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'
bad='go movetime -100\ngo nodes x\ngo wtime 1e3\ngo perft 0\nsetoption name Hash value 0\n'
bad+='setoption name Move Overhead value 9999\nsetoption name EvalFile value /\n'
bad+='setoption name UCI_Variant value chess\nposition fen 9/9\nposition startpos moves h2e2 a0a5\n'
bad+='\0d\nbench 99\nweights\nfrobnicate\n'
out=$(run "position startpos moves h2e2\n$bad""d\nisready\n")
[ "$(engine_errors "$out")" = 14 ] && grep -qF "$fen" <<<"$out" && grep -q '^readyok$' <<<"$out" &&
    ! grep -q '^bestmove' <<<"$out"
check "after 14 refused commands, d shows the position set before them" $? "$out"

tap_end
