#!/usr/bin/env bash
# The command lines of scripts/chuhe-run, scripts/tune-loop and scripts/strength, without
# a game: --version prints the version of the programs they run (the git hash of the
# build, as the C programs print it), and a mistyped command exits with status 2 and one
# line naming the option, leaving no folder, run file or log behind.
# Prints TAP lines. Usage: tests/scripts_args.sh <bindir>
set -u
bindir=$(cd "${1:-bin}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/support/tap.sh"
tap_require "$bindir/chuhe-coordinator" "$bindir/chuhe-worker" "$bindir/chuhe-engine" \
    "$bindir/chuhe-tune"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# strength checks that its opponents exist; these never play here
export CHUHE_FSF=/bin/true CHUHE_SJAAK=/bin/true
version=$("$bindir/chuhe-coordinator" --version | sed 's/^chuhe-coordinator //')

# run NAME ARGS...: scripts/NAME in an empty folder $cwd, its output in $tmp/out.txt (its
# standard error alone also in $tmp/err.txt) and its exit status in $rc; $left lists
# what it left in the folder.
cwd=$tmp/cwd
run() {
    local name=$1
    shift
    rm -rf "$cwd"
    mkdir "$cwd"
    (cd "$cwd" && timeout -k 5 60 "$root/scripts/$name" "$@") >"$tmp/std.txt" 2>"$tmp/err.txt"
    rc=$?
    cat "$tmp/std.txt" "$tmp/err.txt" >"$tmp/out.txt"
    left=$(ls -A "$cwd")
}

# ---- --version ---------------------------------------------------------------------------
for s in chuhe-run tune-loop strength; do
    run "$s" --bindir "$bindir" --version
    [ $rc = 0 ] && [ "$(cat "$tmp/out.txt")" = "$s $version" ]
    check "$s --version: '$s $version', status 0" $? "status $rc: $(cat "$tmp/out.txt")"
done

# ---- refused: status 2, one line naming the option, nothing created ---------------------
# refused SCRIPT WORD ARGS...: the one line names WORD. With REFUSED_LATE=1 the script
# may first have said what it was about to start (on its standard output).
refused() {
    local s=$1 word=$2 said=$tmp/out.txt
    shift 2
    run "$s" "$@"
    [ "${REFUSED_LATE:-}" != 1 ] || said=$tmp/err.txt
    [ $rc = 2 ] && [ "$(wc -l <"$said")" = 1 ] && grep -qF -- "$word" "$said" &&
        ! grep -qE 'line [0-9]+:|unbound variable|parameter null' "$tmp/out.txt" && [ -z "$left" ]
    local ok=$?
    check "$s $*: status 2, one line naming $word, nothing created ($(head -1 "$tmp/out.txt" | cut -c1-120))" \
        $ok "status $rc, left: '$left'; $(cat "$tmp/out.txt")"
}

refused chuhe-run --frobnicate --bindir "$bindir" --frobnicate
refused chuhe-run --games --bindir "$bindir" --games abc
refused chuhe-run --ranks --bindir "$bindir" --ranks 0

# every option of tune-loop that takes a value, given none
for o in --games --nodes --random-plies --seed -n --weights --match-games --match-nodes --sprt \
    --gauntlet --gauntlet-tc --gauntlet-engine --gauntlet-openings --tune --out --bindir; do
    refused tune-loop "$o" --bindir "$bindir" "$o"
done
refused tune-loop --games --bindir "$bindir" --games ''
refused tune-loop --frobnicate --bindir "$bindir" --frobnicate

# (strength works from the checkout's root: its --out is given in full)
refused strength --tc --bindir "$bindir" --tc 0+0 --out "$cwd/s"
refused strength --tc --bindir "$bindir" --tc 10+0.1,90000+0 --out "$cwd/s"
refused strength --tc --bindir "$bindir" --tc 10+4000 --out "$cwd/s"
# what only the coordinator finds wrong: its line (naming the seed of -openings, which
# strength's --seed becomes), and still nothing left behind
REFUSED_LATE=1 refused strength 'openings seed' --bindir "$bindir" --seed 99999999999999999999999 \
    --out "$cwd/s/t"
tap_end
