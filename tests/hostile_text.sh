#!/usr/bin/env bash
# Text from a run file is data, never code (docs/security.md, "Run files from others"):
# run files forged with the project's writer (tests/tools/runfile_forge) and changed with
# h5py hold player names, run settings and an SPSA parameter name made to break out of a
# gnuplot data block, a gnuplot string, HTML, a PGN tag or a terminal line. `report`,
# `export pgn`, `verify` and `spsa-report --plot` run no command of theirs (no file
# appears) and show the text escaped; names with control characters are refused on the
# command line with one line. Needs no MPI. Usage: tests/hostile_text.sh BINDIR
set -u
bindir=${1:-bin}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/support/tap.sh"
bindir=$(cd "$bindir" && pwd)
coord=$bindir/chuhe-coordinator
forge=$bindir/tests/tools/runfile_forge
tap_require "$coord" "$forge"
tap_plan 11
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
esc=$'\e'
cd "$tmp" || exit 1 # gnuplot's '!' commands would run here

# A name that ends report's data block and runs a shell command through gnuplot's '!',
# one with every quote and an HTML tag and a terminal escape, and a plain one.
evil=$'x\nEOD\n!touch pwned-report\n#'
quotes="b'\"<i>${esc}[31m"
"$forge" "$tmp/h.h5" --name "$evil" --name "$quotes" --name c 2>"$tmp/forge.err"
check "a run file with hostile player names is written" $? "$tmp/forge.err"

"$coord" report "$tmp/h.h5" --out "$tmp/rep" >"$tmp/rep.txt" 2>"$tmp/rep.err"
rc=$?
[ ! -e "$tmp/pwned-report" ]
check "report runs no command from a player name" $? "$(cat "$tmp/rep.err")"
[ $rc -eq 0 ] && grep -qF 'x\x0aEOD\x0a!touch' "$tmp/rep.txt" && ! grep -q '^EOD' "$tmp/rep.txt" &&
    ! grep -qF "$esc" "$tmp/rep.txt"
check "report's text shows control characters as \\xNN, exit 0" $? "$(cat "$tmp/rep.err" "$tmp/rep.txt")"
grep -qF 'x\x0aEOD\x0a!touch' "$tmp/rep/index.html" &&
    grep -qF "b'&quot;&lt;i&gt;\\x1b[31m" "$tmp/rep/index.html" && ! grep -q '<i>' "$tmp/rep/index.html"
check "index.html has the names escaped" $? "$(grep -n 'players:' "$tmp/rep/index.html")"
if command -v gnuplot >/dev/null 2>&1; then
    [ -s "$tmp/rep/match.png" ] && ! grep -q 'gnuplot failed' "$tmp/rep.err"
    check "the ranking with those names is drawn" $? "$tmp/rep.err"
else
    skip "the ranking with those names is drawn" "gnuplot is not installed"
fi

"$coord" export pgn "$tmp/h.h5" -o "$tmp/h.pgn" 2>"$tmp/pgn.err"
rc=$?
[ $rc -eq 0 ] && grep -qF '[Red "b'"'"'\"<i> [31m"]' "$tmp/h.pgn" &&
    [ "$(grep -c '^\[' "$tmp/h.pgn")" = "$(grep -c '^\[[A-Za-z]* ".*"\]$' "$tmp/h.pgn")" ] &&
    ! grep -q '^EOD\|^!touch' "$tmp/h.pgn"
check "export pgn: each tag one line, quotes escaped, control characters blanked" $? \
    "$(cat "$tmp/pgn.err"; grep '^\[\(Red\|Black\)' "$tmp/h.pgn" | head -4)"

# verify on a run_config of damaged bytes: shown as \xNN, not sent to the terminal
"$forge" "$tmp/c.h5" --config "{${esc}[2J${esc}]0;owned"$'\a}' 2>"$tmp/forge.err" &&
    "$coord" verify "$tmp/c.h5" >"$tmp/verify.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -qF 'run_config: expected a string at '"'"'\x1b[2J\x1b]0;owned\x07}' \
    "$tmp/verify.txt" && ! grep -qF "$esc" "$tmp/verify.txt"
check "verify shows a damaged run_config escaped, exit 1" $? "$(od -c "$tmp/verify.txt" | head -12)"

# spsa-report --plot: a parameter name rewritten in the file is refused as damaged
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    "$forge" "$tmp/s.h5" --spsa p 2>"$tmp/forge.err" &&
        /usr/bin/python3 - "$tmp/s.h5" pwned-spsa <<'PY'
import sys
import h5py

with h5py.File(sys.argv[1], "r+") as f:
    d = f["spsa_params"]
    row = d[0]
    row["name"] = ("p\ne\n!touch %s\n#" % sys.argv[2]).encode()
    d[0] = row
PY
    "$coord" spsa-report "$tmp/s.h5" --plot "$tmp/s.png" >"$tmp/spsa.out" 2>"$tmp/spsa.err"
    rc=$?
    [ ! -e "$tmp/pwned-spsa" ]
    check "spsa-report --plot runs no command from a parameter name" $? "$tmp/spsa.err"
    [ $rc -eq 1 ] && grep -q '/spsa_params row 0 is damaged' "$tmp/spsa.err" &&
        [ "$(wc -l <"$tmp/spsa.err")" -eq 1 ]
    check "spsa-report refuses the file with one line" $? "$(cat "$tmp/spsa.out" "$tmp/spsa.err")"
else
    skip "spsa-report --plot runs no command from a parameter name" "python3-h5py missing"
    skip "spsa-report refuses the file with one line" "python3-h5py missing"
fi

# names with control characters are refused where they enter, in one line
"$coord" --name-red $'a\nEOD\n!touch x' --games 2 --out "$tmp/n.h5" >"$tmp/n.out" 2>"$tmp/n.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/n.err")" -eq 1 ] && grep -qF "'a\\x0aEOD\\x0a!touch x'" "$tmp/n.err" &&
    [ ! -e "$tmp/n.h5" ]
check "--name-red with a line break: one line, exit 2, no run file" $? "$tmp/n.err"
"$coord" -engine name=$'a\e[2Jb' builtin -engine name=b builtin -each nodes=100 -games 2 \
    --out "$tmp/e.h5" >"$tmp/e.out" 2>"$tmp/e.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e.err")" -eq 1 ] && ! grep -qF "$esc" "$tmp/e.err" &&
    grep -qF 'a\x1b[2Jb' "$tmp/e.err" && [ ! -e "$tmp/e.h5" ]
check "-engine name= with an escape sequence: one line, exit 2, no run file" $? "$tmp/e.err"
tap_end
