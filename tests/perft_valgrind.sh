#!/usr/bin/env bash
# perft through the real chuhe-engine under valgrind's memcheck: no invalid access, no
# uninitialised value used, no leak. Prints TAP. Usage: tests/perft_valgrind.sh <bindir>
#
# Skipped when valgrind is missing, and in the sanitizer build (bindir .../san), whose
# AddressSanitizer runtime cannot run under valgrind.
set -u
bindir=${1:-bin}
bin=$bindir/chuhe-engine
name="perft under valgrind"
. "$(dirname "$0")/support/tap.sh"

case $bindir in
san | */san | */san/) tap_skip_all "$name" "sanitizer build: valgrind and ASan do not mix" ;;
esac
command -v valgrind >/dev/null 2>&1 || tap_skip_all "$name" "valgrind missing"
tap_require "$bin"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# name, commands (printf %b), expected node count
case_() {
    local title=$1 cmds=$2 want=$3 out rc
    out=$(printf '%b' "$cmds" | timeout 600 valgrind -q --error-exitcode=1 --leak-check=full \
        --log-file="$log" "$bin" 2>&1)
    rc=$?
    [ "$rc" -eq 0 ] && grep -qx "Nodes searched: $want" <<<"$out"
    check "$title" $? "exit status $rc, expected 'Nodes searched: $want'
$(grep -m 3 '^Nodes searched\|error' <<<"$out")
$(head -n 36 "$log")"
}

tap_plan 3
case_ "$name: position startpos, go perft 3" \
    'position startpos\ngo perft 3\nquit\n' 79666
case_ "$name: position fen (perft.epd #2), go perft 3" \
    'position fen r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1\ngo perft 3\nquit\n' \
    43929
# errors on the way must not leak or corrupt anything either
case_ "$name: bad FEN, illegal move, then position startpos moves, go perft 3" \
    'position fen rnbakabnr/9/1c5c1/p1p1p1p1p x\nposition startpos moves h2h9\nposition startpos moves h2e2 h9g7\ngo perft 3\n' \
    51045
tap_end
