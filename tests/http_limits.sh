#!/usr/bin/env bash
# The live page cannot be held (docs/watch.md, "Who may see it"): 16 loopback clients
# that each send a request line and then a header line every second (each byte resets
# libmicrohttpd's idle timeout) do not lock a viewer out: /api/status is still served at
# once, and each trickling connection is closed by the request deadline within a few
# seconds. Also what --http and --bind refuse or accept: --http '' and --bind inproc://
# (one line, exit 2, no run file) and --bind tcp://localhost:* (bound on 127.0.0.1).
# Needs no MPI; about 10 s. Usage: tests/http_limits.sh BINDIR
set -u
bindir=${1:-bin}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/support/tap.sh"
coord=$bindir/chuhe-coordinator
tap_require "$coord"
py=/usr/bin/python3
[ -x "$py" ] || tap_skip_all "the live page cannot be held" "$py missing"
tap_plan 6
tmp=$(mktemp -d)
cpid=
cleanup() {
    [ -n "$cpid" ] && kill -TERM "$cpid" 2>/dev/null && wait "$cpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

"$coord" --json --bind 'tcp://localhost:*' --http 127.0.0.1:0 --games 2 --nodes 1000 \
    --out "$tmp/live.h5" >"$tmp/live.out" 2>"$tmp/live.err" &
cpid=$!
url=
for _ in $(seq 100); do
    url=$(sed -n 's/.*"event":"http","url":"\([^"]*\)".*/\1/p' "$tmp/live.out")
    [ -n "$url" ] && grep -q '"event":"listening"' "$tmp/live.out" && break
    sleep 0.1
done
grep -q '"event":"listening","endpoint":"tcp://127\.0\.0\.1:[1-9][0-9]*"' "$tmp/live.out"
check "--bind tcp://localhost:* listens on 127.0.0.1" $? "$(cat "$tmp/live.out" "$tmp/live.err")"
hostport=${url#http://}
hostport=${hostport%/}

# 16 slow clients (as many as one address could hold open) for 9 s; the script prints
# "connected N" once they are, then per connection when the server closed it ("closed
# SECONDS") or "open" when it was still open at the end.
timeout 20 "$py" - "${hostport%:*}" "${hostport##*:}" >"$tmp/slow.txt" 2>&1 <<'PY' &
import socket, sys, time

host, port = sys.argv[1], int(sys.argv[2])
start = time.monotonic()
conns = []
for i in range(16):
    try:
        s = socket.create_connection((host, port), timeout=2)
        s.sendall(b"GET /api/status HTTP/1.1\r\nHost: x\r\n")
        s.setblocking(False)
        conns.append([s, None])
    except OSError as e:
        print("refused", e)
print("connected", len(conns), flush=True)
while time.monotonic() - start < 9:
    time.sleep(1)
    for c in conns:
        if c[1] is not None:
            continue
        try:
            if c[0].recv(4096) == b"":
                c[1] = time.monotonic() - start
                continue
        except BlockingIOError:
            pass
        except OSError:
            c[1] = time.monotonic() - start
            continue
        try:
            c[0].sendall(b"X-Slow: 1\r\n")
        except OSError:
            c[1] = time.monotonic() - start
for c in conns:
    print("open" if c[1] is None else "closed %.1f" % c[1])
PY
spid=$!
for _ in $(seq 100); do
    grep -q '^connected' "$tmp/slow.txt" && break
    sleep 0.1
done
sleep 1 # a header line each

# viewers meanwhile: each asks for /api/status once, within 3 s (the first connection after
# the 16 is one that a per-address limit alone would refuse)
viewer() {
    "$py" - "${hostport%:*}" "${hostport##*:}" <<'PY'
import socket, sys

s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)
s.sendall(b"GET /api/status HTTP/1.0\r\nHost: x\r\n\r\n")
data = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
sys.stdout.write(data.decode(errors="replace"))
PY
}
t0=$(date +%s.%N)
served=0
for k in 1 2 3; do
    viewer >"$tmp/viewer$k.http" 2>&1
    head -1 "$tmp/viewer$k.http" | grep -q ' 200 ' && grep -q '"event":"progress"' "$tmp/viewer$k.http" &&
        served=$((served + 1))
done
t1=$(date +%s.%N)
[ $served -eq 3 ]
check "/api/status is served to 3 viewers in a row while 16 clients trickle headers ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" \
    $? "$(head -3 "$tmp"/viewer?.http)"

wait "$spid"
closed=$(awk '$1 == "closed" && $2 <= 8 { n++ } END { print n + 0 }' "$tmp/slow.txt")
grep -q '^connected 16$' "$tmp/slow.txt" || closed=0
[ "$closed" -eq 16 ]
check "every trickling connection is closed within 8 s ($closed of 16)" $? "$tmp/slow.txt"

kill -0 "$cpid" 2>/dev/null
check "the coordinator still runs" $? "$tmp/live.err"

# what --http and --bind refuse: one line, exit 2, no run file
"$coord" --http '' --games 2 --out "$tmp/e.h5" >"$tmp/e.out" 2>"$tmp/e.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e.err")" -eq 1 ] && grep -q "^chuhe-coordinator: --http '': give ADDR:PORT" "$tmp/e.err" &&
    [ ! -e "$tmp/e.h5" ]
check "--http '': one line, exit 2, no run file" $? "$(cat "$tmp/e.out" "$tmp/e.err")"
"$coord" --bind inproc://x --games 2 --out "$tmp/i.h5" >"$tmp/i.out" 2>"$tmp/i.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/i.err")" -eq 1 ] && grep -q "^chuhe-coordinator: --bind 'inproc://x': give tcp://" "$tmp/i.err" &&
    [ ! -e "$tmp/i.h5" ]
check "--bind inproc://x: one line, exit 2, no run file" $? "$(cat "$tmp/i.out" "$tmp/i.err")"
tap_end
