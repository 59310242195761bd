#!/usr/bin/env bash
# Security and limits of the coordinator/worker link, end to end with real processes:
# key pairs from `chuhe-coordinator keygen`; the loopback rule without keys; a CURVE
# coordinator (on tcp://*:*, started with the cutechess-style options) that real MPI
# workers with a listed key fill, while clients without CURVE, with an unlisted key or
# with the wrong server key get nothing and are logged; the allow-list read again on
# SIGHUP; the rate limit, the in-flight limit and the message size limit against
# tests/tools/wire_client; a full disk, as a file size limit (prlimit) and as a real
# full tmpfs (mount, skipped where not allowed): the coordinator stops taking work,
# keeps every acknowledged game and goes on when space returns; the Slurm script and
# scripts/chuhe-run on one machine.
# Prints TAP. Usage: tests/security_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
probe=$(mktemp -d)
if [ -x "$coord" ] && "$coord" keygen "$probe/k" 2>&1 | grep -q 'has no CURVE'; then
    rm -rf "$probe"
    tap_skip_all "security end to end" "this libzmq has no CURVE"
fi
rm -rf "$probe"
e2e_begin "security end to end" 36 "$coord" "$worker" "$client"
mounted=
e2e_on_exit() {
    [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
}
nodes=300
[ "$san" = 1 ] && nodes=150

# Starts a coordinator in the background: log-name, args... Sets cpid and ep.
start_coord() { e2e_start_coord "$1" --progress-interval 0.2 "${@:2}"; }

games_of() { sed -n 's/.*"games":\([0-9]*\).*/\1/p' "$tmp/$1.out" | tail -1; }
key_of() { sed -n 's/^\([^ ]\{40\}\)\( .*\)\{0,1\}$/\1/p' "$1" | head -1; }
acks() { grep -c '^ack stored' "$1" 2>/dev/null; }

# ---- keys ----
keys=$tmp/keys
mkdir "$keys"
ok=0
for k in coord w1 w2; do
    "$coord" keygen "$keys/$k" >>"$tmp/keygen.txt" 2>&1 || ok=1
done
[ $ok -eq 0 ] && [ "$(stat -c %a "$keys/w1.key")" = 600 ] && [ "$(stat -c %a "$keys/w1.pub")" = 644 ] &&
    [ "$(key_of "$keys/w1.pub" | wc -c)" = 41 ] && [ "$(grep -vc '^#' "$keys/w1.key")" = 1 ] &&
    grep -qF "public key $(key_of "$keys/w1.pub"))" "$tmp/keygen.txt"
check "keygen writes NAME.key (mode 600) and NAME.pub (644), one Z85 key each" $? "$tmp/keygen.txt"

sum=$(cat "$keys/w1.key" "$keys/w1.pub" | md5sum)
"$coord" keygen "$keys/w1" >"$tmp/keygen2.txt" 2>&1
[ $? -ne 0 ] && grep -q 'w1.key exists (a key file is never overwritten)' "$tmp/keygen2.txt" &&
    [ "$(cat "$keys/w1.key" "$keys/w1.pub" | md5sum)" = "$sum" ]
check "keygen refuses to overwrite a key" $? "$tmp/keygen2.txt"

{
    echo "# the workers of this test"
    cat "$keys/w1.pub"
} >"$keys/allowed"
w1=$(key_of "$keys/w1.pub") w2=$(key_of "$keys/w2.pub")

# ---- what a coordinator refuses at start ----
bad=0
for b in 'tcp://*:5999' 'tcp://0.0.0.0:5999' 'tcp://10.1.2.3:5999'; do
    "$coord" --bind "$b" --out "$tmp/never.h5" >"$tmp/open.txt" 2>&1
    [ $? -eq 2 ] && grep -qF -- "--bind $b: without keys a coordinator binds only loopback" "$tmp/open.txt" ||
        bad=1
done
[ $bad -eq 0 ] && [ ! -e "$tmp/never.h5" ]
check "without keys, tcp://*:PORT and other non-loopback binds are refused before any file is made" \
    $? "$tmp/open.txt"

cp "$keys/allowed" "$keys/allowed-bad"
printf '%s # twice\nnot-a-key\n' "$w2" >>"$keys/allowed-bad"
"$coord" --bind 'tcp://*:5999' --curve-secret "$keys/coord.key" --allow-keys "$keys/allowed-bad" \
    --out "$tmp/never.h5" >"$tmp/bad-list.txt" 2>&1
[ $? -eq 2 ] && grep -qF "$keys/allowed-bad:4: 'not-a-key' is not a key" "$tmp/bad-list.txt" &&
    [ ! -e "$tmp/never.h5" ]
check "an allow-list with a bad line is refused at start, naming file:line" $? "$tmp/bad-list.txt"

cp "$keys/coord.key" "$keys/open.key"
chmod 644 "$keys/open.key"
"$coord" --bind 'tcp://*:5999' --curve-secret "$keys/open.key" --allow-keys "$keys/allowed" \
    --out "$tmp/never.h5" >"$tmp/open-key.txt" 2>&1
[ $? -eq 2 ] && grep -q 'a secret key must be private to its owner, but its mode is 0644' "$tmp/open-key.txt"
check "a secret key file others can read is refused" $? "$tmp/open-key.txt"

start_coord open --bind 'tcp://*:*' --open-network --out "$tmp/open.h5" --games 2
[ $? -eq 0 ] && grep -q 'warning: no keys and --open-network: plain, unauthenticated' "$tmp/open.err"
check "--open-network binds tcp://*:* without keys, with a warning" $? "$tmp/open.err"
kill -TERM "$cpid"
wait_for "$cpid" 10
section "keys and refusals"

# ---- a CURVE run: real workers with a listed key, refused intruders ----
run=$tmp/curve.h5
start_coord curve --bind 'tcp://*:*' --curve-secret "$keys/coord.key" --allow-keys "$keys/allowed" \
    --out "$run" --heartbeat-timeout 5 --drain-timeout 10 \
    -engine name=first builtin -engine name=second builtin -each nodes=$nodes -rounds 3 -maxmoves 60
[ $? -eq 0 ] && grep -qF "CURVE on: the coordinator's public key is $(key_of "$keys/coord.pub")" "$tmp/curve.err" &&
    grep -q '1 worker keys allowed' "$tmp/curve.err"
check "a CURVE coordinator on tcp://*:* with the tournament options names its key and the keys allowed" \
    $? "$tmp/curve.err"

"$client" --wait 3 "$ep" play 1 >"$tmp/i1.txt" 2>&1
[ $? -ne 0 ] && grep -q '^no reply$' "$tmp/i1.txt" &&
    wait_line "$tmp/curve.err" 'refused a connection on .*: \(no key (the peer does not use CURVE)\|the handshake broke off\)' 5
check "a client without CURVE gets no work and no answer; the refusal is logged" $? \
    "$(cat "$tmp/i1.txt" "$tmp/curve.err")"

"$client" --wait 3 "$ep" garbage >"$tmp/i2.txt" 2>&1
[ $? -ne 0 ] && grep -q '^no reply$' "$tmp/i2.txt"
check "a client without CURVE sending garbage gets nothing back" $? "$tmp/i2.txt"

"$client" --wait 3 --server-key "$keys/coord.pub" --secret "$keys/w2.key" "$ep" play 1 >"$tmp/i3.txt" 2>&1
[ $? -ne 0 ] && grep -q '^no reply$' "$tmp/i3.txt" &&
    wait_line "$tmp/curve.err" "refused a connection from 127.0.0.1: CURVE key $w2 is not in" 5 -F
check "a client with an unlisted key gets nothing; the log names its key and address" $? \
    "$(cat "$tmp/i3.txt" "$tmp/curve.err")"

# it gives up after three failed handshakes, long before its --timeout (a loaded machine
# may take seconds to start an MPI program, so the bound is loose)
t0=$(date +%s)
timeout 400 "$worker" --connect "$ep" --curve-server-key "$keys/w2.pub" --curve-secret "$keys/w1.key" \
    --timeout 300 >"$tmp/wrong.txt" 2>&1
rc=$?
t1=$(date +%s)
[ $rc -eq 1 ] && [ $((t1 - t0)) -lt 120 ] &&
    grep -q 'failed the CURVE handshake three times in a row: is --curve-server-key the coordinator' "$tmp/wrong.txt"
check "a worker given the wrong server key stops with a clear error in $((t1 - t0)) s (--timeout 300)" $? \
    "$tmp/wrong.txt"

timeout 60 "$worker" --connect "$ep" --curve-server-key "$keys/coord.pub" --curve-secret "$keys/w2.key" \
    >"$tmp/unlisted.txt" 2>&1
[ $? -eq 1 ] && grep -q "refused this worker's key: add its public key" "$tmp/unlisted.txt"
check "a worker with an unlisted key stops at once" $? "$tmp/unlisted.txt"

timeout 60 "$worker" --connect "$ep" >"$tmp/plain.txt" 2>&1
# (which side sees the mechanisms differ first is a race: both answers name CURVE)
[ $? -eq 1 ] && grep -q 'requires CURVE: give --curve-server-key\|does it require CURVE (--curve-server-key' \
    "$tmp/plain.txt"
check "a worker without keys stops at once: the coordinator requires CURVE" $? "$tmp/plain.txt"

timeout -k 5 120 mpirun --oversubscribe --bind-to none -np 2 ${mpi_env[@]+"${mpi_env[@]}"} "$worker" \
    --connect "$ep" --quiet --curve-server-key "$keys/coord.pub" --curve-secret "$keys/w1.key" \
    >"$tmp/cw.out" 2>"$tmp/cw.err"
wrc=$?
wait_for "$cpid" 30
[ $wrc -eq 0 ] && [ $rc -eq 0 ] && grep -q '"status":"complete"' "$tmp/curve.out" &&
    grep -q 'worker joined: rank 0/2 on .*, key w1$' "$tmp/curve.err"
check "mpirun -np 2 workers with a listed key play the whole run" $? \
    "$(grep -v '^pairs' "$tmp/curve.err"; cat "$tmp/cw.out" "$tmp/cw.err"
        echo "workers exit $wrc, coordinator exit $rc")"

verify "$run"
[ "$(verify_count games)" = 6 ] && [ "$(verify_count full_pairs)" = 3 ] &&
    [ "$(verify_count invalid)" = 0 ] && ! grep -q 'wire-client\|rejected game' "$tmp/curve.err"
check "verify: the 6 games of the listed workers and nothing else" $? \
    "$(cat "$tmp/verify.txt" "$tmp/curve.err")"
section "a CURVE run"

# ---- the allow-list read again on SIGHUP ----
start_coord hup --bind 'tcp://127.0.0.1:*' --curve-secret "$keys/coord.key" --allow-keys "$keys/allowed" \
    --out "$tmp/hup.h5" --games 1000 --max-plies 40
"$client" --id first --server-key "$keys/coord.pub" --secret "$keys/w1.key" "$ep" play 1 >"$tmp/h1.txt" 2>&1
[ $? -eq 0 ] && [ "$(acks "$tmp/h1.txt")" = 2 ]
check "a client with a listed key has its games stored" $? "$tmp/h1.txt"

"$client" --id kept --wait 8 --server-key "$keys/coord.pub" --secret "$keys/w1.key" "$ep" play 1000 \
    >"$tmp/h2.txt" 2>&1 &
hpid=$!
wait_line "$tmp/h2.txt" '^ack stored' 20
printf '# the new list\n%s # second\n' "$w2" >"$keys/allowed"
kill -HUP "$cpid"
wait_line "$tmp/hup.err" 'read again: 1 worker keys allowed (1 new, 1 removed' 5 && kill -0 "$cpid"
check "SIGHUP reads the allow-list again and the coordinator runs on" $? "$tmp/hup.err"

wait_for "$hpid" 40
before=$(acks "$tmp/h2.txt")
[ $rc -ne 0 ] && grep -q '^no ACK for pair\|^no reply' "$tmp/h2.txt" &&
    grep -qF "dropped a message from kept: its key $w1 is no longer allowed" "$tmp/hup.err"
check "the removed key's open connection gets nothing more ($before games acknowledged before)" $? \
    "$(cat "$tmp/h2.txt" "$tmp/hup.err")"

"$client" --id second --server-key "$keys/coord.pub" --secret "$keys/w2.key" "$ep" play 1 >"$tmp/h3.txt" 2>&1
[ $? -eq 0 ] && [ "$(acks "$tmp/h3.txt")" = 2 ]
check "the newly listed key gets in" $? "$tmp/h3.txt"

echo "junk" >>"$keys/allowed"
kill -HUP "$cpid"
wait_line "$tmp/hup.err" "SIGHUP: $keys/allowed:3: 'junk' is not a key.*; the 1 keys read before stay in force" 5 &&
    "$client" --id third --server-key "$keys/coord.pub" --secret "$keys/w2.key" "$ep" play 1 >"$tmp/h4.txt" 2>&1 &&
    [ "$(acks "$tmp/h4.txt")" = 2 ]
check "a bad allow-list on SIGHUP is refused with file:line, the keys in force stay" $? \
    "$(cat "$tmp/h4.txt" "$tmp/hup.err")"
kill -TERM "$cpid"
wait_for "$cpid" 10
section "SIGHUP"

# ---- limits ----
start_coord lim --bind 'tcp://127.0.0.1:*' --out "$tmp/lim.h5" --games 1000 --max-plies 40 \
    --rate-limit 50 --max-inflight 1 --max-message 1000
[ $? -eq 0 ] && grep -q 'no keys: plain connections, on loopback only' "$tmp/lim.err"
check "without keys on 127.0.0.1 the coordinator says it runs plain on loopback" $? "$tmp/lim.err"

"$client" --id eager "$ep" inflight 3 >"$tmp/l1.txt" 2>&1
[ $? -eq 0 ] && [ "$(grep -c '^early WAIT$' "$tmp/l1.txt")" = 3 ] &&
    [ "$(grep -c '^late WORK$' "$tmp/l1.txt")" = 3 ] && [ "$(acks "$tmp/l1.txt")" = 6 ] &&
    [ "$(grep -c 'eager holds 1 pairs not yet acknowledged (--max-inflight 1): no new pair' "$tmp/lim.err")" = 1 ]
check "--max-inflight 1: asking again before the ACKs gets WAIT, after them WORK; logged once in 3 waits" $? \
    "$(cat "$tmp/l1.txt" "$tmp/lim.err")"

"$client" --id flood "$ep" flood 20000 >"$tmp/l2.txt" 2>&1
replies=$(sed -n 's/^sent 20000 replies \([0-9]*\)$/\1/p' "$tmp/l2.txt")
[ -n "$replies" ] && [ "$replies" -ge 50 ] && [ "$replies" -le 300 ] &&
    [ "$(grep -c 'rate limit: flood sends more than 50 messages a second (burst 100): dropping' "$tmp/lim.err")" = 1 ]
check "20000 messages at once: ${replies:-?} answered, the excess dropped with one log line" $? \
    "$(cat "$tmp/l2.txt" "$tmp/lim.err")"

"$client" --id flood "$ep" flood 100 >"$tmp/l3.txt" 2>&1
grep -q '^sent 100 replies 0$' "$tmp/l3.txt" &&
    [ "$(grep -c 'rate limit: flood keeps flooding (1000 messages dropped without a pause): ignored for 60 s' "$tmp/lim.err")" = 1 ]
check "a client that keeps flooding is ignored, with one log line" $? "$(cat "$tmp/l3.txt" "$tmp/lim.err")"

"$client" --id flood2 "$ep" flood 300000 >"$tmp/l4.txt" 2>&1 &
fpid=$!
"$client" --id good "$ep" play 1 >"$tmp/l5.txt" 2>&1
grc=$?
wait_for "$fpid" 60
[ $grc -eq 0 ] && [ "$(acks "$tmp/l5.txt")" = 2 ] && grep -q '^sent 300000 replies' "$tmp/l4.txt"
check "during a flood a good client is served" $? "$(cat "$tmp/l4.txt" "$tmp/l5.txt")"

"$client" --id big "$ep" big 5000 >"$tmp/l6.txt" 2>&1
brc=$?
"$client" --id small "$ep" big 900 >"$tmp/l7.txt" 2>&1
[ $brc -ne 0 ] && grep -q '^no reply$' "$tmp/l6.txt" && grep -q '^reply ERROR bad message' "$tmp/l7.txt"
check "a message over --max-message 1000 ends the connection unanswered; a shorter one is judged" $? \
    "$(cat "$tmp/l6.txt" "$tmp/l7.txt")"
kill -TERM "$cpid"
wait_for "$cpid" 10
section "limits"

# ---- a full disk: a file size limit on the running coordinator ----
if command -v prlimit >/dev/null 2>&1; then
    run=$tmp/full.h5
    start_coord full --bind 'tcp://127.0.0.1:*' --out "$run" --games 1000 --max-plies 40
    fcpid=$cpid
    "$client" --id filler --wait 60 "$ep" play 1000 >"$tmp/f1.txt" 2>&1 &
    ppid_=$!
    for i in $(seq 200); do [ "$(acks "$tmp/f1.txt")" -ge 4 ] && break; sleep 0.1; done
    # the soft limit only: a user may lower it and raise it again up to the hard one
    hard=$(prlimit --pid "$fcpid" --fsize --output HARD --noheadings | tr -d ' ')
    prlimit --pid "$fcpid" --fsize=$(($(stat -c %s "$run") + 4096)):
    wait_line "$tmp/full.err" 'cannot write the run file: .*File too large; no new work and no games are taken' 10
    check "a file size limit reached: the coordinator says why in one line and stops taking work" $? \
        "$tmp/full.err"

    sleep 1 # a progress line after the stall
    stalled=$(acks "$tmp/f1.txt")
    g1=$(games_of full)
    "$client" --id asker --wait 5 "$ep" request >"$tmp/f2.txt" 2>&1
    sleep 3
    grep -q '^reply WAIT$' "$tmp/f2.txt" && [ "$(acks "$tmp/f1.txt")" = "$stalled" ] &&
        [ "$(games_of full)" = "$g1" ] && kill -0 "$fcpid"
    check "while the file cannot grow: WAIT for work, no game taken or acknowledged, still running" $? \
        "$(cat "$tmp/f2.txt" "$tmp/full.err")"

    prlimit --pid "$fcpid" --fsize="$hard":
    wait_line "$tmp/full.err" 'the run file is writable again after' 10
    for i in $(seq 100); do [ "$(acks "$tmp/f1.txt")" -gt "$stalled" ] && break; sleep 0.1; done
    [ "$(acks "$tmp/f1.txt")" -gt "$stalled" ]
    check "with the limit gone it writes the waiting games, acknowledges them and goes on" $? \
        "$(cat "$tmp/f1.txt" "$tmp/full.err")"

    prlimit --pid "$fcpid" --fsize=$(($(stat -c %s "$run") + 4096)):
    for i in $(seq 100); do
        [ "$(grep -c 'cannot write the run file' "$tmp/full.err")" -ge 2 ] && break
        sleep 0.1
    done
    sleep 1
    kill -TERM "$fcpid"
    wait_for "$fcpid" 20
    crc=$rc
    sleep 0.5
    kill -TERM "$ppid_" 2>/dev/null
    wait "$ppid_" 2>/dev/null
    acked=$(acks "$tmp/f1.txt")
    ids=$(sed -n 's/^ack stored .* id \([0-9]*\)$/\1/p' "$tmp/f1.txt" | sort -n | tr '\n' ' ')
    verify "$run"
    [ "$crc" -ne 124 ] && grep -q '^verify .*: OK$' "$tmp/verify.txt" &&
        [ "$(verify_count games)" = "$acked" ] &&
        [ "$ids" = "$(seq 0 $((acked - 1)) | tr '\n' ' ')" ]
    check "stopped while full: the file verifies and holds exactly the $acked acknowledged games" $? \
        "$(cat "$tmp/verify.txt" "$tmp/full.err")"
else
    for t in "a file size limit stalls the coordinator" "no work and no ACK while full" \
        "the coordinator goes on when the limit goes" "the file holds exactly the acknowledged games"; do
        skip "$t" "prlimit missing"
    done
fi
section "a file size limit"

# ---- a full disk for real: a small tmpfs, real workers ----
disk=$tmp/disk
mkdir "$disk"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=6m tmpfs "$disk" 2>/dev/null; then
    mounted=$disk
    run=$disk/run.h5
    # games count once flushed (every 2 s): a run long enough to fill the disk in its middle
    start_coord disk --bind 'tcp://127.0.0.1:*' --out "$run" --games 60 --nodes $((nodes * 2)) --max-plies 120 \
        --heartbeat-timeout 20 --drain-timeout 10
    dcpid=$cpid
    timeout -k 5 200 mpirun --oversubscribe --bind-to none -np 2 ${mpi_env[@]+"${mpi_env[@]}"} "$worker" \
        --connect "$ep" --quiet --timeout 120 >"$tmp/dw.out" 2>"$tmp/dw.err" &
    mpid=$!
    for i in $(seq 600); do [ "$(games_of disk)" -ge 2 ] 2>/dev/null && break; sleep 0.1; done
    dd if=/dev/zero of="$disk/filler" bs=64k 2>/dev/null
    wait_line "$tmp/disk.err" 'cannot write the run file: .*No space left on device' 15
    sleep 1 # a progress line after the stall
    g1=$(games_of disk)
    sleep 3
    [ "$(games_of disk)" = "$g1" ] && [ "$g1" -lt 60 ] && kill -0 "$mpid" && kill -0 "$dcpid"
    check "a full tmpfs: the coordinator stops at $g1 games with a clear line, the workers wait" $? \
        "$tmp/disk.err"
    rm -f "$disk/filler"
    wait_for "$mpid" 150
    wrc=$rc
    wait_for "$dcpid" 30
    [ $wrc -eq 0 ] && [ $rc -eq 0 ] && grep -q 'the run file is writable again' "$tmp/disk.err" &&
        grep -q '"status":"complete"' "$tmp/disk.out"
    check "space back: the same workers finish the run" $? "$(cat "$tmp/dw.err" "$tmp/disk.err")"
    verify_pairs "$run" 60 30
    check "verify on the tmpfs: 60 games in 30 pairs, each once" $? "$tmp/verify.txt"
    umount "$disk" && mounted=
else
    for t in "a full tmpfs stalls the coordinator" "the workers finish when space is back" \
        "verify on the tmpfs"; do
        skip "$t" "cannot mount a tmpfs here"
    done
fi
section "a full tmpfs"

# ---- the scripts ----
slurm=$tmp/slurm
mkdir "$slurm"
SLURM_SUBMIT_DIR=$slurm CHUHE_BIN=$bindir CHUHE_GAMES=4 CHUHE_NODES=$nodes CHUHE_HOST=127.0.0.1 \
    CHUHE_COORD_ARGS="--max-plies 80" timeout -k 5 120 bash "$root/scripts/slurm/chuhe.sbatch" \
    >"$tmp/sbatch.txt" 2>&1
src=$?
[ $src -eq 0 ] && grep -q 'CURVE on' "$slurm"/chuhe-*.coordinator.log &&
    grep -q 'worker joined: rank 0/.*, key workers$' "$slurm"/chuhe-*.coordinator.log &&
    ! ls -d "$slurm"/chuhe-*.keys >/dev/null 2>&1
check "the Slurm script runs a CURVE job on one machine (mpirun) and removes its keys" $? \
    "$(cat "$tmp/sbatch.txt" "$slurm"/chuhe-*.coordinator.log)"

"$root/scripts/chuhe-run" --bindir "$bindir" -n 1 --games 2 --nodes "$nodes" --max-plies 60 \
    --out "$tmp/run.h5" >"$tmp/chuhe-run.txt" 2>&1
[ $? -eq 0 ] && grep -q 'plain connections, on loopback only' "$tmp/chuhe-run.txt"
check "scripts/chuhe-run runs on loopback without keys" $? "$tmp/chuhe-run.txt"

"$worker" --connect tcp://127.0.0.1:9 --curve-secret "$keys/w1.key" >"$tmp/half.txt" 2>&1
[ $? -eq 2 ] && grep -q -- '--curve-server-key and --curve-secret go together' "$tmp/half.txt"
check "a worker with half the key options is refused" $? "$tmp/half.txt"
section "scripts"
e2e_end
