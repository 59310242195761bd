#!/usr/bin/env bash
# The worker's engine pool end to end: a round robin of three external UCI engines
# (bin/chuhe-engine behind tests/engines/counted.sh, which notes the worker rank that
# starts it) on `mpirun -np 2` workers starts each engine at most once per rank, however
# the pairs move the engines between the two players of a WORK.
# Prints TAP. Usage: tests/extpool_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
coord=$bindir/chuhe-coordinator
worker=$bindir/chuhe-worker
uci=$(cd "$bindir" && pwd)/chuhe-engine
engines=$(cd "$(dirname "$0")" && pwd)/engines
. "$(dirname "$0")/support/e2e.sh"
e2e_begin "the worker's engine pool end to end" 2 "$coord" "$worker" "$uci"
nodes=200
[ "$san" = 1 ] && nodes=100

# Three rounds: nine pairs, each engine in both players' places against both others.
args=()
for e in a b c; do
    args+=(-engine name=$e cmd="$engines/counted.sh $tmp/$e.count $uci" proto=uci)
done
e2e_run rr "${args[@]}" -each nodes=$nodes -rounds 3 -maxmoves 60
check "round robin of 3 external engines: 18 games, coordinator and workers exit 0" \
    $((rc_c != 0 || rc_w != 0 || $(field rr games | grep -c ':18$') != 1)) "$tmp/rr.err"
ok=0 counts=()
for e in a b c; do
    starts=$(cat "$tmp/$e.count" 2>/dev/null | wc -l)
    again=$(sort "$tmp/$e.count" 2>/dev/null | uniq -d | wc -l)
    counts+=("$e: $starts starts, $again ranks starting it more than once")
    [ "$starts" -ge 1 ] && [ "$starts" -le 2 ] && [ "$again" -eq 0 ] || ok=1
done
counts=$(IFS=';' && echo "${counts[*]}" | sed 's/;/; /g')
check "each engine started once per rank that played it ($counts)" $ok "$counts"
e2e_end
