#!/usr/bin/env bash
# Counts after a stop on a full disk: a coordinator (with --ack-log) that cannot write its
# run file (a file size limit, as tests/security_e2e.sh sets one) is stopped with games
# waiting for the flush. Its summary, the ack log's close line and its ACKs count the
# games of the file as `verify` reads it, and the waiting games are left out with one
# line; the next session takes them from the same client, which sends them again, as
# new games and not as duplicates, and ends with every game once.
# Prints TAP. Usage: tests/diskfull_counts.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
command -v prlimit >/dev/null 2>&1 || tap_skip_all "counts after a full disk" "prlimit missing"
e2e_begin "counts after a full disk" 3 "$coord" "$client"

run=$tmp/run.h5
acklog=$tmp/ack.log
num() { field "$1" "$2" | sed 's/.*://'; }
close_games() { sed -n 's/^{"event":"close","games":\([0-9]*\)}$/\1/p' "$acklog" | tail -1; }
stored_acks() { grep -c '"status":"stored"' "$acklog"; }

# a long progress interval keeps the standard output under the file size limit
e2e_start_coord first --bind 'tcp://127.0.0.1:*' --out "$run" --games 12 --max-plies 40 \
    --ack-log "$acklog" --progress-interval 30
first=$cpid
"$client" --id filler --wait 60 "$ep" play 6 >"$tmp/client.txt" 2>&1 &
cl=$!
for _ in $(seq 200); do [ "$(grep -c '^ack stored' "$tmp/client.txt")" -ge 4 ] && break; sleep 0.1; done
prlimit --pid "$first" --fsize=$(($(stat -c %s "$run") + 4096)):
wait_line "$tmp/first.err" 'cannot write the run file: .*games wait unacknowledged' 10
kill -TERM "$first"
wait_for "$first" 20
verify "$run"
games=$(verify_count games)
[ -n "$games" ] && [ "$(num first games)" = "$games" ] && [ "$(close_games)" = "$games" ] &&
    [ "$(stored_acks)" = "$games" ] && [ "$(grep -c '^ack stored' "$tmp/client.txt")" = "$games" ] &&
    [ "$(num first pairs_done)" = "$(verify_count full_pairs)" ]
check "stopped while full: summary, close line and ACKs count the $games games verify reads" $? \
    "$(cat "$tmp/verify.txt" "$acklog" "$tmp/first.err")"
grep -q '^[-0-9: ]*[1-9][0-9]* games that could not be written are left out of the run file' \
    "$tmp/first.err"
check "the games that waited for the flush are left out, in one line" $? "$tmp/first.err"

e2e_start_coord second --bind "$ep" --out "$run" --ack-log "$acklog" --progress-interval 30
second=$cpid
wait_for "$cl" 60
crc=$rc
wait_for "$second" 30
ids=$(sed -n 's/.*"game_id":\([0-9]*\),.*"status":"stored".*/\1/p' "$acklog" | sort -n | tr '\n' ' ')
verify_pairs "$run" 12 6 && [ "$crc" = 0 ] && [ "$(num second duplicates)" = 0 ] &&
    [ "$(num second games)" = 12 ] && [ "$(close_games)" = 12 ] &&
    [ "$ids" = "$(seq 0 11 | tr '\n' ' ')" ]
check "resumed: the games sent again are stored once, none a duplicate; 12 games, 12 ACKs" $? \
    "$(cat "$tmp/verify.txt" "$tmp/client.txt" "$acklog" "$tmp/second.err")"
e2e_end
