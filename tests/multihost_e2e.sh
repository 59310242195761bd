#!/usr/bin/env bash
# A self-play run over a network of three hosts, each a network namespace: the
# coordinator's, with a bridge, and two worker hosts joined to it by veth pairs, on
# 10.213.0.0/24 (coordinator .1, host A .2, host B .3). The link uses CURVE keys, each
# host runs `mpirun -np 2` workers under its own host name (a UTS namespace), and while
# the games flow host A's link goes down for 20 s and host B's mpirun and ranks are
# killed with SIGKILL and started again. The run must still complete with every
# acknowledged game stored once (the --ack-log against `verify`), games from every
# rank of both hosts, and host A playing new pairs once its link is back.
# The namespaces have no default route and nothing of theirs touches the root
# namespace: no packet leaves them. They are removed at exit, also on failure or SIGINT.
# Needs root, `ip` and `unshare`; prints one SKIP line otherwise.
# Prints TAP. Usage: tests/multihost_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
name="several hosts in network namespaces"

tag=chuhe-$$
ns_c=$tag-coord ns_a=$tag-hostA ns_b=$tag-hostB
namespaces="$ns_c $ns_a $ns_b"
# interface names are unique per test (at most 15 characters), so that the root
# namespace can be checked for them
br=chbr$$ ca=chca$$ cb=chcb$$ ha=chha$$ hb=chhb$$
net=10.213.0
coord_ip=$net.1
outage=20

# ---- can this machine make namespaces? ----
tap_require "$coord" "$worker"
[ "$(id -u)" -eq 0 ] || tap_skip_all "$name" "not root"
command -v ip >/dev/null 2>&1 || tap_skip_all "$name" "ip (iproute2) missing"
command -v unshare >/dev/null 2>&1 || tap_skip_all "$name" "unshare missing"
probe=$tag-probe
if ! ip netns add "$probe" 2>/dev/null; then
    tap_skip_all "$name" "ip netns add fails here"
fi
why=
ip -n "$probe" link add "chpa$$" type veth peer name "chpb$$" 2>/dev/null || why="no veth pairs"
[ -z "$why" ] && { ip -n "$probe" link add "chpc$$" type bridge 2>/dev/null || why="no bridges"; }
[ -z "$why" ] && { ip netns exec "$probe" unshare --uts true 2>/dev/null || why="no UTS namespaces"; }
ip netns del "$probe"
[ -z "$why" ] || tap_skip_all "$name" "$why in a network namespace"
pk=$(mktemp -d)
if "$coord" keygen "$pk/k" 2>&1 | grep -q 'has no CURVE'; then
    rm -rf "$pk"
    tap_skip_all "$name" "this libzmq has no CURVE"
fi
rm -rf "$pk"

e2e_begin "$name" 12 "$coord" "$worker"
# SIGINT (Ctrl-C), SIGTERM and SIGHUP end the test through its EXIT trap
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Stops whatever still runs inside the namespaces (only this test's processes can),
# then removes them; their veths and the bridge go with them.
net_down() {
    local ns i left
    for i in $(seq 50); do
        left=
        for ns in $namespaces; do left="$left $(ip netns pids "$ns" 2>/dev/null)"; done
        [ -z "${left// /}" ] && break
        if [ "$i" -lt 20 ]; then kill -TERM $left 2>/dev/null; else kill -KILL $left 2>/dev/null; fi
        sleep 0.1
    done
    for ns in $namespaces; do
        ip netns del "$ns" 2>/dev/null
    done
}
e2e_on_exit() { net_down; }

# The network: a bridge in the coordinator's namespace, one veth pair per worker host
# made inside the namespaces (never in the root one), no default route anywhere.
net_up() {
    local ns
    for ns in $namespaces; do
        ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
    done
    ip -n "$ns_c" link add "$br" type bridge &&
        ip -n "$ns_c" link add "$ca" type veth peer name "$ha" netns "$ns_a" &&
        ip -n "$ns_c" link add "$cb" type veth peer name "$hb" netns "$ns_b" &&
        ip -n "$ns_c" link set "$ca" master "$br" &&
        ip -n "$ns_c" link set "$cb" master "$br" &&
        ip -n "$ns_c" addr add "$coord_ip/24" dev "$br" &&
        ip -n "$ns_a" addr add "$net.2/24" dev "$ha" &&
        ip -n "$ns_b" addr add "$net.3/24" dev "$hb" &&
        ip -n "$ns_c" link set "$br" up &&
        ip -n "$ns_c" link set "$ca" up &&
        ip -n "$ns_c" link set "$cb" up &&
        ip -n "$ns_a" link set "$ha" up &&
        ip -n "$ns_b" link set "$hb" up
}

# The interfaces of a namespace ("root" for the root one), one name a line.
links() {
    if [ "$1" = root ]; then ip -o link show; else ip -n "$1" -o link show; fi |
        sed -n 's/^[0-9]*: \([^:@]*\).*/\1/p'
}

# Starts two worker ranks in namespace NS under host name HOST: NS HOST LOG. Sets hpid.
start_host() {
    timeout -k 5 400 ip netns exec "$1" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$2" \
        mpirun --oversubscribe --bind-to none -np 2 ${mpi_env[@]+"${mpi_env[@]}"} "$worker" \
        --connect "$ep" --curve-server-key "$keys/coord.pub" --curve-secret "$keys/workers.key" \
        >"$tmp/$3.out" 2>&1 &
    hpid=$!
}

# Runs a command every 0.1 s until it succeeds, for at most SECONDS (at least once):
# SECONDS COMMAND...
poll_until() {
    local i
    for i in $(seq 0 $(($1 * 10))); do
        "${@:2}" && return 0
        sleep 0.1
    done
    return 1
}

# The seconds left of host A's outage, less MARGIN, as FORMAT (default whole seconds):
# MARGIN [FORMAT]
left_s() {
    awk -v d="$down_at" -v now="$(date +%s.%N)" -v o=$outage -v m="$1" -v f="${2:-%d}" \
        'BEGIN { s = d + o - m - now; printf f "\n", (s > 0 ? s : 0) }'
}

acks=$tmp/acks.jsonl
run=$tmp/run.h5
# the stored ACKs of HOST's ranks, or of its ranks with the pids PIDS: HOST ["PID PID"]
stored_of() {
    local pids=${2:-[0-9]*}
    grep -c "\"status\":\"stored\",\"worker\":\"rank [0-9]*/2 on $1 (pid \(${pids// /\\|}\))" \
        "$acks" 2>/dev/null
}
# the pids of the ranks started with output LOG: LOG
ranks_of() { sed -n 's/.*: rank [0-9]* of 2, pid \([0-9]*\), connecting.*/\1/p' "$tmp/$1.out" | sort -n | xargs; }
clog() { grep -v '^pairs ' "$tmp/coord.err"; } # the coordinator's log without live lines
# How many of HOST's two ranks (or of those with the pids PIDS) have a line in the
# coordinator's log that goes on with TEXT after the rank's name: HOST TEXT ["PID PID"]
ranks_logged() {
    local pids=${3:-[0-9]*}
    clog | grep "rank [01]/2 on $1 (pid \(${pids// /\\|}\))$2" | grep -o 'rank [01]/2' | sort -u | wc -l
}

# ---- the network ----
before=$(links root)
net_up >"$tmp/net.txt" 2>&1
nrc=$?
for ns in $namespaces; do
    echo "== $ns" && ip -n "$ns" -4 -o addr show && ip -n "$ns" route show
done >>"$tmp/net.txt" 2>&1
defaults=$(for ns in $namespaces; do ip -n "$ns" route show default; done 2>&1)
leaked=$(links root | grep -x "$br\|$ca\|$cb\|$ha\|$hb")
[ $nrc -eq 0 ] && [ -z "$defaults" ] && [ -z "$leaked" ] &&
    links "$ns_c" | grep -qx "$ca" && links "$ns_a" | grep -qx "$ha" && links "$ns_b" | grep -qx "$hb"
check "three namespaces on $net.0/24 (a bridge in the coordinator's, a veth pair per host), no default route, no interface in the root namespace" \
    $? "$(cat "$tmp/net.txt"; echo "default routes: $defaults"; echo "in the root namespace: $leaked")"
[ $nrc -eq 0 ] || exit 1
section "network"

# ---- the coordinator, with keys, on its namespace's address ----
keys=$tmp/keys
mkdir "$keys"
"$coord" keygen "$keys/coord" >"$tmp/keygen.txt" 2>&1 && "$coord" keygen "$keys/workers" >>"$tmp/keygen.txt" 2>&1
# A time per move, not a node count: the run lasts about as long on a busy machine, an
# idle one or in the sanitizer build, and so outlasts the faults (about 30 s) by far.
movetime=15 games=120
timeout -k 5 400 ip netns exec "$ns_c" "$coord" --json --bind "tcp://$coord_ip:*" \
    --curve-secret "$keys/coord.key" --allow-keys "$keys/workers.pub" --games $games --movetime $movetime \
    --heartbeat-timeout 8 --drain-timeout 15 --progress-interval 0.5 --out "$run" --ack-log "$acks" \
    >"$tmp/coord.out" 2>"$tmp/coord.err" &
cpid=$!
listening() {
    ep=$(sed -n 's/.*"event":"listening","endpoint":"\([^"]*\)".*/\1/p' "$tmp/coord.out" 2>/dev/null)
    [ -n "$ep" ] || ! kill -0 "$cpid" 2>/dev/null
}
poll_until 10 listening
case $ep in "tcp://$coord_ip:"[0-9]*) true ;; *) false ;; esac &&
    grep -q "CURVE on: .*1 worker keys allowed" "$tmp/coord.err"
check "the coordinator listens with CURVE on ${ep:-nothing} in its namespace ($games games at $movetime ms a move)" \
    $? "$(cat "$tmp/keygen.txt" "$tmp/coord.out" "$tmp/coord.err")"
[ -n "$ep" ] || exit 1

# ---- both hosts ----
start_host "$ns_a" hostA a
apid=$hpid
start_host "$ns_b" hostB b
bpid=$hpid
both_stored() { [ "$(stored_of hostA)" -ge 2 ] && [ "$(stored_of hostB)" -ge 2 ]; }
poll_until 90 both_stored
[ $? -eq 0 ] && [ "$(ranks_logged hostA ', version .*, key workers$')" = 2 ] &&
    [ "$(ranks_logged hostB ', version .*, key workers$')" = 2 ]
check "both hosts' ranks join with the workers' key and store games (hostA $(stored_of hostA), hostB $(stored_of hostB))" \
    $? "$(clog; cat "$tmp/a.out" "$tmp/b.out")"
section "both hosts playing"

# ---- host A's link goes down; meanwhile host B is killed and started again ----
ip -n "$ns_a" link set "$ha" down
down_at=$(date +%s.%N)
sleep 4
old_b=$(ip netns pids "$ns_b" | sort -n)
old_ranks=$(ranks_of b)
exec 3>&2 2>/dev/null # no "Killed" notice from the shell
kill -KILL $old_b
wait "$bpid"
brc=$?
exec 2>&3 3>&-
empty() { left=$(ip netns pids "$ns_b"); [ -z "$left" ]; }
poll_until 5 empty
[ $? -eq 0 ] && [ $brc -eq 137 ] && [ "$(echo "$old_b" | grep -cx "${old_ranks// /\\|}")" = 2 ]
check "host B's mpirun and both its ranks killed with SIGKILL (pids $(echo $old_b)), nothing left in its namespace" \
    $? "$(echo "status $brc, ranks $old_ranks, left: $left"; cat "$tmp/b.out")"

start_host "$ns_b" hostB b2
b2pid=$hpid
new_b=
new_b_stored() {
    new_b=$(ranks_of b2)
    [ "$(echo "$new_b" | wc -w)" = 2 ] && [ "$(stored_of hostB "$new_b")" -ge 1 ]
}
poll_until "$(left_s 1)" new_b_stored # within the outage, a second to spare
[ $? -eq 0 ] && [ "$(ranks_logged hostB ', version .*, key workers$' "$new_b")" = 2 ] &&
    ip -n "$ns_a" link show "$ha" | grep -q 'state DOWN'
check "while host A is cut off, host B's restarted ranks (pids $new_b) join and store games ($(stored_of hostB "${new_b:-0}"))" \
    $? "$(clog; cat "$tmp/b2.out")"

# the coordinator hears nothing from host A: past --heartbeat-timeout its pairs go back
# in the queue
a_silent() { [ "$(ranks_logged hostA ' silent for [0-9]* s')" = 2 ]; }
poll_until "$(left_s 0)" a_silent
[ $? -eq 0 ] && ip -n "$ns_a" link show "$ha" | grep -q 'state DOWN'
check "host A's ranks, cut off, fall silent and lose their pairs to the queue" $? \
    "$(clog; cat "$tmp/a.out")"

# the link comes back after the outage
sleep "$(left_s 0 %.2f)"
ip -n "$ns_a" link set "$ha" up
up_at=$(date +%s.%N)
section "host A down for $(awk -v a="$down_at" -v b="$up_at" 'BEGIN { printf "%.1f", b - a }') s, host B killed and restarted"
# A pair id at or above pairs_done + pairs_out + dropped of a progress line written after
# the link came back was first handed out after that line: every lower id was complete,
# queued, assigned or dropped then.
seen=$(grep -c '"event":"progress"' "$tmp/coord.out")
first_new=
progress_after_up() {
    first_new=$(grep '"event":"progress"' "$tmp/coord.out" | sed -n "$((seen + 2))p" |
        sed 's/.*"pairs_done":\([0-9]*\),"pairs_target":[0-9]*,"pairs_out":\([0-9]*\),.*"dropped":\([0-9]*\),.*/\1 \2 \3/' |
        awk 'NF == 3 { print $1 + $2 + $3 }')
    [ -n "$first_new" ]
}
poll_until 10 progress_after_up
a_back=
back() { [ "$(ranks_logged hostA ' is back$')" = 2 ]; }
new_a=0
a_new_pairs() {
    new_a=$(grep '"status":"stored","worker":"rank [01]/2 on hostA ' "$acks" |
        sed 's/.*"pair_id":\([0-9]*\),.*/\1/' | awk -v p="${first_new:-999999999}" '$1 >= p' | wc -l)
    [ "$new_a" -ge 1 ]
}
if poll_until 60 back; then
    a_back=$(awk -v a="$up_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
fi
poll_until 90 a_new_pairs
[ $? -eq 0 ] && [ -n "$a_back" ]
check "host A's ranks are back ${a_back:-never} s after the link comes up and store games of pairs first handed out after it (ids from ${first_new:-?})" \
    $? "$(clog; cat "$tmp/a.out")"
section "host A back"

# ---- the end of the run ----
wait_for "$cpid" 300
crc=$rc
wait_for "$apid" 60
arc=$rc
wait_for "$b2pid" 60
b2rc=$rc
summ=$(grep '"event":"summary"' "$tmp/coord.out" | tail -1)
[ $crc -eq 0 ] && [ $arc -eq 0 ] && [ $b2rc -eq 0 ] &&
    echo "$summ" | grep -q "\"status\":\"complete\".*\"games\":$games," &&
    grep -q '^chuhe-worker: 2 ranks, .* 0 ranks failed$' "$tmp/a.out" &&
    grep -q '^chuhe-worker: 2 ranks, .* 0 ranks failed$' "$tmp/b2.out"
check "the run completes: the coordinator exits 0 at $games games, host A's and host B's new mpirun exit 0 with no rank failed" \
    $? "$(echo "coordinator $crc, host A $arc, host B $b2rc"; clog | tail -15; tail -n 5 "$tmp/a.out" "$tmp/b2.out")"
section "run complete"

# acknowledged = stored: one session, so every stored game has one "stored" ACK naming
# its row, and no (pair, game in pair) twice
verify "$run"
vgames=$(verify_count games)
ids=$(grep '"status":"stored"' "$acks" | sed 's/.*"game_id":\([0-9]*\),.*/\1/' | sort -n)
nstored=$(echo "$ids" | grep -c .)
nids=$(echo "$ids" | uniq | grep -c .)
last=$(echo "$ids" | tail -1)
keys_stored=$(grep '"status":"stored"' "$acks" |
    sed 's/.*"pair_id":\([0-9]*\),"game_in_pair":\([01]\).*/\1.\2/' | sort -u | wc -l)
rejected=$(grep -c '"status":"rejected"' "$acks")
dup_acks=$(grep -c '"status":"duplicate"' "$acks")
[ "$nstored" = "$vgames" ] && [ "$nids" = "$vgames" ] && [ "$last" = $((vgames - 1)) ] &&
    [ "$keys_stored" = "$vgames" ] && [ "$rejected" = 0 ] &&
    [ "$(grep -c '"event":"open"' "$acks")" = 1 ] && tail -1 "$acks" | grep -q "\"event\":\"close\",\"games\":$vgames}"
check "acknowledged = stored: $nstored stored ACKs for game ids 0..$last, once each, $keys_stored (pair, game) keys; verify counts $vgames ($dup_acks duplicate ACKs, $rejected rejected)" \
    $? "$(echo "stored ACKs $nstored, ids $nids, last $last, keys $keys_stored, rejected $rejected"; head -2 "$acks"; tail -3 "$acks")"

verify_pairs "$run" $games $((games / 2))
check "verify: OK, $games games in $((games / 2)) full pairs, duplicates 0, invalid 0" $? "$tmp/verify.txt"

# every rank of both hosts stored games (the summary keeps a count per host and rank)
per_rank=$(echo "$summ" | grep -o '"rank":[0-9]*,"host":"[^"]*","games":[0-9]*' |
    sed 's/"rank":\([0-9]*\),"host":"\([^"]*\)","games":\([0-9]*\)/\2:\1=\3/' | sort)
total=$(echo "$per_rank" | sed 's/.*=//' | awk '{ s += $1 } END { print s + 0 }')
ok=0
for r in hostA:0 hostA:1 hostB:0 hostB:1; do
    echo "$per_rank" | grep -q "^$r=[1-9]" || ok=1
done
[ $ok -eq 0 ] && [ "$total" = $games ] && [ "$(echo "$per_rank" | wc -l)" = 4 ]
check "every rank of both hosts contributed: $(echo $per_rank)" $? "$(echo "$per_rank"; echo "$summ")"
requeued=$(echo "$summ" | sed -n 's/.*"requeued":\([0-9]*\).*/\1/p')
dups=$(echo "$summ" | sed -n 's/.*"duplicates":\([0-9]*\).*/\1/p')
a_new_pairs
echo "# summary: requeued $requeued, duplicates $dups, elapsed $(echo "$summ" | sed -n 's/.*"elapsed_s":\([0-9.]*\).*/\1/p') s;" \
    "host A stored $new_a games of pairs first handed out after its link came back"

# ---- nothing left behind ----
net_down
left=$(ip netns list | grep "^$tag-")
after=$(links root)
[ -z "$left" ] && [ "$before" = "$after" ]
check "the namespaces are removed, the root namespace's interfaces are as before" $? \
    "$(echo "left: $left"; diff <(echo "$before") <(echo "$after"))"
e2e_end
