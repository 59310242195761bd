#!/usr/bin/env bash
# A network through the real bin/chuhe-engine: EvalFile takes a network file (a random
# one written by tests/tools/nnue_random), eval shows the network's evaluation and
# search uses it; a broken network file is one error line and the evaluation in use
# stays; Use NNUE false gives back the handcrafted search to the node; a weights file
# drops the network; a new engine, and EvalFile <builtin>, search with the built-in
# network. Prints TAP lines. Usage: tests/uci_nnue.sh <bindir>
set -u
bindir="${1:-bin}"
engine="$bindir/chuhe-engine"
maker="$bindir/tests/tools/nnue_random"
. "$(dirname "$0")/support/tap.sh"
. "$(dirname "$0")/support/engine.sh"
tap_require "$engine" "$maker"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
net="$tmp/random.nnue"
"$maker" "$net" 64 8 5
check "nnue_random writes a network file" $? ""

pos='position fen r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1'
nodes() { grep -E '^info depth 5 .* pv ' <<<"$1" | tail -1 | sed -E 's/.* nodes ([0-9]+) .*/\1/'; }

# Pipes the commands (printf %b) into an engine, then eval and go depth 5 for $pos, and
# prints what it wrote up to its best move: a search is not cut short by the input's end.
search() {
    local cmd
    engine_start
    while IFS= read -r cmd; do
        [ -n "$cmd" ] && engine_send "$cmd"
    done < <(printf '%b\n' "$1")
    engine_send "$pos" eval "go depth 5"
    engine_expect '^bestmove' 60000
    printf '%s' "$got"
    engine_stop
}

engine_check "uci lists the check option Use NNUE, default true" "uci\nquit\n" \
    '^option name Use NNUE type check default true$'

builtin=$(search "")
grep -qE "^NNUE: -?[0-9]+ \(red view\), -?[0-9]+ \(side to move\); network 256x2 -> 1 buckets \(bucket 0\), SCALE 400, 'chuhe-train: " <<<"$builtin" &&
    grep -qE '^search uses the NNUE evaluation: -?[0-9]+ \(side to move\)$' <<<"$builtin"
check "a new engine: eval and search use the built-in network" $? "$builtin"

hce=$(search "setoption name Use NNUE value false")
grep -q '^search uses the handcrafted (Use NNUE is false) evaluation' <<<"$hce" &&
    [ "$(nodes "$hce")" != "$(nodes "$builtin")" ]
check "Use NNUE false: the handcrafted evaluation, another search" $? "$hce"

out=$(search "setoption name EvalFile value $net")
! grep -q '^info string error' <<<"$out" &&
    grep -qE "^NNUE: -?[0-9]+ \(red view\), -?[0-9]+ \(side to move\); network 64x2 -> 8 buckets \(bucket 6\), SCALE 40, 'random 64x8 seed 5'$" <<<"$out" &&
    grep -qE '^search uses the NNUE evaluation: -?[0-9]+ \(side to move\)$' <<<"$out" &&
    grep -qE '^bestmove [a-i][0-9][a-i][0-9]' <<<"$out" && [ "$(nodes "$out")" != "$(nodes "$hce")" ]
check "EvalFile <network>: eval shows it, search uses it (other node count)" $? "$out"
with_net=$out

# the same evaluation line for the side to move as the network's own line
v1=$(sed -nE 's/^NNUE: -?[0-9]+ \(red view\), (-?[0-9]+) \(side to move\).*/\1/p' <<<"$out")
v2=$(sed -nE 's/^search uses the NNUE evaluation: (-?[0-9]+) .*/\1/p' <<<"$out")
[ -n "$v1" ] && [ "$v1" = "$v2" ]
check "eval: the network's value is what search uses" $? "$out"

out=$(search "setoption name EvalFile value $net\nsetoption name Use NNUE value false")
grep -q '^search uses the handcrafted (Use NNUE is false) evaluation' <<<"$out" &&
    [ "$(nodes "$out")" = "$(nodes "$hce")" ] &&
    [ "$(grep -E '^bestmove' <<<"$out")" = "$(grep -E '^bestmove' <<<"$hce")" ]
check "Use NNUE false: the handcrafted search, node for node" $? "$out"

out=$(search "setoption name EvalFile value $net\nsetoption name Use NNUE value false\nsetoption name Use NNUE value true")
[ "$(nodes "$out")" = "$(nodes "$with_net")" ]
check "Use NNUE true again: the network's search, node for node" $? "$out"

out=$(engine_run "setoption name Use NNUE value maybe\nisready\n")
engine_refuses 1 "$out" "setoption Use NNUE: 'maybe' is not true or false" &&
    grep -q '^readyok' <<<"$out"
check "Use NNUE maybe: one error line" $? "$out"

# broken files: one error line naming the file and the fault, the network kept
head -c 1000 "$net" >"$tmp/cut.nnue"
{ cat "$net"; printf 'x'; } >"$tmp/long.nnue"
printf 'CHUHENNU\002\000\000\000' >"$tmp/v2.nnue"
head -c 112 /dev/zero >>"$tmp/v2.nnue"
broken() { # file, expected words
    local out
    out=$(search "setoption name EvalFile value $net\nsetoption name EvalFile value $1")
    [ "$(engine_errors "$out")" = 1 ] &&
        grep -qF "info string error: setoption EvalFile: $1: $2" <<<"$out" &&
        grep -q 'previous evaluation kept$' <<<"$out" &&
        [ "$(grep '^NNUE' <<<"$out")" = "$(grep '^NNUE' <<<"$with_net")" ] &&
        [ "$(nodes "$out")" = "$(nodes "$with_net")" ]
    check "EvalFile $(basename "$1"): one error line, the network kept" $? "$out"
}
broken "$tmp/cut.nnue" "truncated: the payload has 888 of"
broken "$tmp/long.nnue" "1 bytes follow the payload"
broken "$tmp/v2.nnue" "network format version 2, this engine reads version 1"

# a weights file after a network: the handcrafted evaluation with those weights
w="$tmp/written.weights"
out=$(search "weights $w\nsetoption name EvalFile value $net\nsetoption name EvalFile value $w")
grep -q '^NNUE: no network (a weights file was loaded); search uses the handcrafted evaluation$' <<<"$out" &&
    [ "$(nodes "$out")" = "$(nodes "$hce")" ]
check "EvalFile <weights> after a network: the network is dropped" $? "$out"

out=$(search "setoption name EvalFile value $net\nsetoption name EvalFile value $w\nsetoption name EvalFile value <builtin>")
! grep -q '^info string error' <<<"$out" && [ "$(grep '^NNUE' <<<"$out")" = "$(grep '^NNUE' <<<"$builtin")" ] &&
    [ "$(nodes "$out")" = "$(nodes "$builtin")" ]
check "EvalFile <builtin> after a network and weights: the built-in network, node for node" $? "$out"

tap_end
