#!/usr/bin/env bash
# UCI transcripts against the real bin/chuhe-engine: each case pipes commands in and
# checks the answer. Prints TAP lines. Usage: tests/uci.sh <bindir>
set -u
engine="${1:-bin}/chuhe-engine"
. "$(dirname "$0")/support/tap.sh"
. "$(dirname "$0")/support/engine.sh"
tap_require "$engine"

out=$(engine_run 'uci\nisready\nquit\n')
grep -q '^id name chuhe' <<<"$out" && grep -q '^uciok$' <<<"$out" && grep -q '^readyok$' <<<"$out"
check "uci handshake: id name, uciok, readyok" $? "$out"

out=$(engine_run 'position startpos\ngo perft 3\n')
total=$(grep -E '^[a-i][0-9][a-i][0-9]: [0-9]+$' <<<"$out" | awk '{s += $2} END {print s}')
lines=$(grep -cE '^[a-i][0-9][a-i][0-9]: [0-9]+$' <<<"$out")
grep -q '^Nodes searched: 79666$' <<<"$out" && [ "$total" = 79666 ] && [ "$lines" = 44 ]
check "go perft 3 from the start: 44 divide lines summing to 79666" $? "$out"

engine_check "position startpos moves ... then d prints the FEN" 'position startpos moves h2e2 h9g7\nd\n' \
    '^Fen: rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2$'

out=$(engine_run 'position startpos moves h2e2\nposition fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1 w - - 0 1\nd\n')
errs=$(engine_errors "$out")
[ "$errs" = 1 ] && grep -q 'Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b' <<<"$out"
check "bad FEN: one error line, previous position kept" $? "$out"

out=$(engine_run 'position startpos moves h2e2\nposition startpos moves h2e2 h7h0\nd\n')
grep -q "^info string error: position: move 2 'h7h0' is illegal" <<<"$out" &&
    grep -q 'Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b' <<<"$out"
check "illegal move: error names it, previous position kept" $? "$out"

engine_check "malformed move text is reported" 'position startpos moves h2e2 zz99\n' \
    "^info string error: position: move 2 'zz99' is not a move"

out=$(engine_run 'frobnicate now\n\n   \nisready\n')
[ "$(grep -c '^info string error: unknown command' <<<"$out")" = 1 ] && grep -q '^readyok$' <<<"$out"
check "unknown command: one error line, engine carries on" $? "$out"

out=$(engine_run 'go perft 0\ngo perft x\ngo perft\ngo wibble\nposition\nposition fen\nisready\n')
engine_carried_on 6 "$out"
check "malformed go and position commands each give one error" $? "$out"

engine_check "d lists the checkers" 'position fen 4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1\nd\n' \
    '^Checkers: e1$'

out=$(engine_run 'position fen 4k4/9/9/9/9/9/9/9/4C4/4K4 w - - 0 1\ngo perft 1\n')
grep -q '^Nodes searched: 9$' <<<"$out" && ! grep -qE '^e1(d1|f1):' <<<"$out"
check "flying general: the cannon between the generals keeps to its file" $? "$out"

out=$(timeout 60 "$engine" go perft 2 2>&1)
grep -q '^Nodes searched: 1920$' <<<"$out"
check "command-line mode: chuhe-engine go perft 2" $? "$out"

# 1200 plies of shuffling horses: longer than the position's history buffer
moves=$(for i in $(seq 300); do printf ' h0g2 h9g7 g2h0 g7h9'; done)
out=$(engine_run "position startpos moves$moves\nd\nisready\n")
grep -q '^Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 1200 601$' <<<"$out" ||
    grep -q '^Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - [0-9]* 601$' <<<"$out"
check "a 1200-ply move list is accepted" $? "$out"

printf 'isready\n' | timeout 10 "$engine" >/dev/null 2>&1
check "end of input ends the engine with status 0" $? "exit status $?"

long=$(printf 'x%.0s' $(seq 1100))
out=$(engine_run "setoption name EvalFile value /tmp/$long\nsetoption name $long value 1\nisready\n")
[ "$(grep -c '^info string error: setoption: the name or the value is too long$' <<<"$out")" = 2 ] &&
    grep -q '^readyok$' <<<"$out"
check "setoption: a name or value too long is refused, not cut short" $? "$out"

out=$(engine_run "ucci\nsetoption hashsize 0\nsetoption hashsize\nsetoption name Hash value 8\nsetoption hashsize 8\nisready\n")
engine_refuses 2 "$out" "setoption hashsize: '0' is out of range (allowed: 1..65536)" \
    "setoption hashsize: needs a whole number (allowed: 1..65536)"
check "UCCI setoption <name> [<value>] and the UCI form both read the value" $? "$out"

# The search's tunable constants: one spin option each, listed as fishtest's SPSA input.
params=$("$engine" spsa-params)
count=$(grep -cE '^[a-z_]+, int, -?[0-9]+, -?[0-9]+, -?[0-9]+, [0-9.e-]+, [0-9.e-]+$' <<<"$params")
out=$(engine_run 'uci\nquit\n')
spins=0
while IFS=', ' read -r name _ value min max _; do
    grep -qx "option name $name type spin default $value min $min max $max" <<<"$out" &&
        spins=$((spins + 1))
done <<<"$params"
[ "$count" -ge 20 ] && [ "$count" = "$(wc -l <<<"$params")" ] && [ "$spins" = "$count" ]
check "spsa-params: $count lines of 'name, int, value, min, max, c_end, r_end', each a UCI spin option" \
    $? "$params"

out=$(engine_run 'setoption name rfp_margin value 150\nucci\nsetoption lmr_base 99\nsetoption lmr_base 999\nspsa-params\n')
grep -q '^rfp_margin, int, 150, ' <<<"$out" && grep -q '^lmr_base, int, 99, ' <<<"$out" &&
    grep -qF "info string error: setoption lmr_base: '999' is out of range (allowed: 0..200)" <<<"$out"
check "setoption sets a search constant (UCI and UCCI), within its range" $? "$out"

tap_end
