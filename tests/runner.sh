#!/usr/bin/env bash
# tests/run itself, on a tree of made-up programs: what it counts as passed, failed and
# skipped, and the failures no "not ok" line announces (an exit status, a timeout, a
# plan not run to its end, no test reported at all). Prints TAP.
# Usage: tests/runner.sh <bindir>   (the bindir is not used: the programs are made here)
set -u
. "$(dirname "$0")/support/tap.sh"
runner=$(cd "$(dirname "$0")" && pwd)/run
tap_require "$runner"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs tests/run on a tree whose only program is tests/t.sh with body $1; prints the
# runner's output.
run_tree() {
    local tree
    tree=$(mktemp -d "$tmp/tree.XXXXXX")
    mkdir -p "$tree/tests" "$tree/bin/tests"
    cp "$runner" "$tree/tests/run"
    printf '#!/usr/bin/env bash\n%s\n' "$1" >"$tree/tests/t.sh"
    chmod +x "$tree/tests/t.sh"
    mkdir "$tree/tmp" # the runner's own log goes there, not into the shared /tmp
    TMPDIR=$tree/tmp CHUHE_TEST_TIMEOUT=${2:-60} bash "$tree/tests/run" "$tree/bin" 2>&1
}

# expect NAME BODY WANT-SUMMARY [WANT-COMMENT [TIMEOUT]]. The summaries are echoed with
# "passed;" for "passed,": a line of this test's own output must not read as a runner's
# closing "N passed, N failed" line to whatever counts the tests.
expect() {
    local out
    out=$(run_tree "$2" "${5:-60}")
    [ "$(tail -1 <<<"$out")" = "$3" ] && { [ -z "${4:-}" ] || grep -qF "$4" <<<"$out"; }
    check "$1: '${3//passed, /passed; }'" $? "${out//passed, /passed; }"
}

tap_plan 10
expect "ok, not ok and SKIP lines are counted" \
    'echo 1..4; echo ok 1; echo "not ok 2"; echo "ok 3 # SKIP no sudo"; echo "ok 4 - # skip x"' \
    "1 passed, 1 failed, 2 skipped"
expect "passes alone" 'echo 1..2; echo ok 1 - a; echo ok 2 - b' "2 passed, 0 failed"
expect "an exit status without a not ok line is one failure" \
    'echo 1..1; echo ok 1; exit 3' "1 passed, 1 failed" "exited with status 3"
expect "a not ok line with an exit status is not counted twice" \
    'echo 1..2; echo ok 1; echo not ok 2; exit 1' "1 passed, 1 failed"
expect "a plan not run to its end is one failure" \
    'echo 1..3; echo ok 1; echo ok 2' "2 passed, 1 failed" "planned 3 tests, ran 2"
expect "a program that reports no test is one failure" \
    'echo "nothing to see"' "0 passed, 1 failed" "reported no test"
expect "a timeout is one failure" \
    'echo ok 1; exec sleep 30' "1 passed, 1 failed" "timed out after 1s" 1
# the program removes the runner's log (the file tee writes to, made in TMPDIR) while it
# runs: the results it printed are lost, and that must not pass for a clean run
# shellcheck disable=SC2016 # expanded by the program, not here
expect "a log that vanishes is one failure, not a silent nothing" \
    'echo 1..1; echo ok 1; sleep 0.2; rm -f "$TMPDIR"/tmp.*' "0 passed, 1 failed" "vanished"

# the failures again at the end, above the summary: a long log's tail shows them
out=$(run_tree 'echo 1..3; echo "not ok 1 - first"; echo "# why the first"; echo ok 2
    echo "# not this"; echo "not ok 3 - third"')
again=$(sed -n '/^# failures, again:$/,$p' <<<"$out")
[ "$(tail -1 <<<"$out")" = "1 passed, 2 failed" ] &&
    [ "$(sed -n 2,5p <<<"$again")" = "#   tests/t.sh:
#   not ok 1 - first
#   # why the first
#   not ok 3 - third" ] && ! grep -q "not this" <<<"$again"
check "the not ok lines and the comments under them again at the end" $? "${out//passed, /passed; }"

out=$(run_tree 'echo 1..1; echo ok 1; echo "last words"; exit 3')
again=$(sed -n '/^# failures, again:$/,$p' <<<"$out")
grep -qx "#   tests/t.sh: exited with status 3, its last lines:" <<<"$again" &&
    grep -qx "#   last words" <<<"$again"
check "a failure without a not ok line: its reason and last lines again at the end" $? \
    "${out//passed, /passed; }"
tap_end
