#!/usr/bin/env bash
# A run resumed with a changed input: the coordinator refuses it with one line naming the
# weights or openings file and its hashes then and now, and goes on with the new one
# only when told --accept-changed-inputs.
# Prints TAP. Usage: tests/resume_inputs_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "resuming with changed inputs" 3 "$coord" "$bindir/chuhe-engine"
run=$tmp/run.h5
"$bindir/chuhe-engine" weights "$tmp/a.weights" >/dev/null
echo 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1' >"$tmp/book.epd"
# a session of the run: started, and stopped once it listens
session() {
    e2e_start_coord "$1" --bind 'tcp://127.0.0.1:*' --out "$run" "${@:2}"
    local started=$?
    kill -TERM "$cpid" 2>/dev/null
    wait_for "$cpid" 20
    return $started
}
session new --weights-red "$tmp/a.weights" --openings "$tmp/book.epd" --nodes 100 --games 2
sed -i 's/^\(material\[cannon\]\) .*/\1 350 380/' "$tmp/a.weights"
session changed
check "a changed weights file is refused, naming it and both hashes" \
    $((rc != 1 || $(grep -cE "run.h5: the weights file $tmp/a.weights of player 0 \(--weights-red\) changed since the run began \(hash [0-9a-f]{16} then, [0-9a-f]{16} now\)" "$tmp/changed.err") != 1 ||
        $(grep -c 'resuming run' "$tmp/changed.err") != 0)) "$tmp/changed.err"
session accepted --accept-changed-inputs
check "--accept-changed-inputs goes on with it, saying so" \
    $(($(grep -c 'going on with it (--accept-changed-inputs)' "$tmp/accepted.err") != 1 ||
        $(grep -c 'resuming run' "$tmp/accepted.err") != 1)) "$tmp/accepted.err"
echo 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1' >"$tmp/book.epd"
session book
check "then a changed openings file is refused" \
    $((rc != 1 || $(grep -cF "run.h5: the openings file $tmp/book.epd changed since the run began" "$tmp/book.err") != 1)) \
    "$tmp/book.err"
e2e_end
