#!/usr/bin/env bash
# The house rules of docs/architecture.md ("Dependency rules"), read from the sources
# alone (nothing is built): which folder includes which, the engine never printing,
# splitmix64 written once, and no program linking another program's objects.
#
# An #include "H" of a file in folder D resolves as the compiler finds it: D/H first,
# then H from the top directory (-I.: "contracts/protocol.h"), then engine/H (-Iengine).
# Prints TAP lines. Usage: tests/house.sh [bindir]   (the bindir is not used)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/support/tap.sh"
cd "$root" || exit 1

FOLDERS="engine contracts extengine uci worker coordinator tuning"
PROGRAMS="uci worker coordinator tuning extengine"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One line "FILE FOLDER HEADER" per #include "HEADER" of the folders' sources, FOLDER
# being where HEADER resolves ("?" for a generated file of build/gen).
for d in $FOLDERS; do
    for f in "$d"/*.[ch]; do
        [ -f "$f" ] || continue
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
            while read -r h; do
                if [ -f "$d/$h" ]; then
                    echo "$f $d $h"
                elif [[ $h == */* ]]; then
                    echo "$f ${h%%/*} $h"
                elif [ -f "engine/$h" ]; then
                    echo "$f engine $h"
                else
                    echo "$f ? $h"
                fi
            done
    done
done >"$tmp/includes"

# bad_includes FROM ALLOWED...: the include lines of folder FROM that resolve to a folder
# of the tree outside ALLOWED (and outside FROM itself).
bad_includes() {
    local from=$1
    shift
    awk -v from="$from" -v allowed="$from $* ?" '
        BEGIN { n = split(allowed, a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
        { split($1, p, "/") }
        p[1] == from && !($2 in ok) { print $1 " includes " $3 }' "$tmp/includes"
}

tap_plan 8

bad=$(for p in $PROGRAMS; do
    bad_includes "$p" engine contracts $([ "$p" = extengine ] || echo extengine)
done)
[ -z "$bad" ]
check "uci/, worker/, coordinator/, tuning/ and extengine/ include no header of one another" \
    $? "$bad"

bad=$(bad_includes engine)
[ -z "$bad" ]
check "engine/ includes nothing of contracts/, extengine/ or the programs' folders" $? "$bad"

bad=$(bad_includes contracts engine)
[ -z "$bad" ]
check "contracts/ includes engine/ and itself only" $? "$bad"

bad=$(bad_includes extengine engine contracts)
[ -z "$bad" ]
check "extengine/ includes engine/, contracts/ and itself only" $? "$bad"

# The base layer of engine/ (docs/architecture.md, "The base") stands on libc alone.
BASE="error array numparse rng textesc"
bad=$(for m in $BASE; do
    for f in engine/$m.c engine/$m.h; do
        [ -f "$f" ] || continue
        awk -v base=" $BASE " '{ h = $3; sub(/\.h$/, "", h) }
            $1 == f && index(base, " " h " ") == 0 { print $1 " includes " $3 }' f="$f" \
            "$tmp/includes"
    done
done)
[ -z "$bad" ]
check "engine's base layer ($BASE) includes nothing but the base" $? "$bad"

# The engine's C code with comments removed and every string or character literal
# emptied, then any use of the standard streams or of a call that writes to them.
bad=$(for f in engine/*.c; do
    perl -0777 -pe 's{(/\*.*?\*/)|(//[^\n]*)|("(?:\\.|[^"\\\n])*")|(\x27(?:\\.|[^\x27\\\n])*\x27)}
                     {defined $1 ? "\n" x ($1 =~ tr/\n//) : defined $3 ? q("") : defined $4 ? "0" : ""}gse' \
        "$f" | grep -nE '\b(stdout|stderr|STDOUT_FILENO|STDERR_FILENO)\b|\b(printf|vprintf|puts|putchar|perror|psignal)[[:space:]]*\(|\bwrite[[:space:]]*\([[:space:]]*[12][[:space:]]*,' |
        sed "s|^|$f:|"
done)
[ -z "$bad" ]
check "no function of engine/ writes to stdout or stderr" $? "$bad"

# splitmix64's step, the golden-ratio constant: defined in engine/rng.h, used by name.
bad=$(grep -rliE '0x9e3779b97f4a7c15' $FOLDERS 2>/dev/null | grep -vx 'engine/rng.h')
[ -z "$bad" ]
check "splitmix64 is written once: its constant appears in engine/rng.h only" $? "$bad"

# A program is its folder plus libraries: no rule of the Makefile for a program or a
# test (continued lines joined) names a single object of a program's folder.
bad=$(sed -e ':a' -e '/\\$/N' -e 's/\\\n//' -e 'ta' Makefile |
    grep -E '^\$\(BINDIR\)/.*\$\(BUILDDIR\)/(uci|worker|coordinator|tuning)/([a-z_]+\.o|,)')
[ -z "$bad" ]
check "the Makefile links no single object of a program's folder into another" $? "$bad"

tap_end
