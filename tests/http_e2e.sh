#!/usr/bin/env bash
# The coordinator's live page (--http, docs/watch.md): a self-play run on a free port
# serves /api/status and /api/history while games flow, the page itself and Chart.js;
# headless Chromium renders the page, which shows the live game count, and takes a
# screenshot (build/http/page.png); the page is read-only, loopback only without
# --http-open, refuses a busy port before any file is made, and goes away with the
# coordinator. Usage: tests/http_e2e.sh BINDIR
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"

e2e_begin http 14 "$coord" "$worker"
nodes=$(e2e_nodes 2000 1000)
shot_dir=$root/build/http
chartjs=/usr/share/javascript/chart.js/chart.min.js

# http_get URL [METHOD]: the whole response (status line, headers, body) on stdout,
# through curl when installed, else through bash's /dev/tcp.
http_get() {
    local url=$1 method=${2:-GET} hostport path
    if command -v curl >/dev/null 2>&1; then
        curl -s -i -m 10 -X "$method" "$url"
        return
    fi
    hostport=${url#http://}
    path=/${hostport#*/}
    hostport=${hostport%%/*}
    exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}" || return 1
    printf '%s %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "$method" "$path" \
        "$hostport" >&3
    timeout 10 cat <&3
    exec 3<&-
}
status_code() { head -1 | awk '{ print $2 }'; }
body() { sed '1,/^\r\{0,1\}$/d'; }
json_num() { grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2; }

# A run long enough to be watched; stopped by SIGTERM once the checks are done.
e2e_start_coord live --bind 'tcp://127.0.0.1:*' --http 127.0.0.1:0 --games 2000 \
    --nodes $nodes --sprt 'elo0=0 elo1=10' --progress-interval 0.5 --out "$tmp/live.h5"
url=$(sed -n 's/.*"event":"http","url":"\([^"]*\)".*/\1/p' "$tmp/live.out")
[[ $url =~ ^http://127\.0\.0\.1:[1-9][0-9]*/$ ]]
check "--http 127.0.0.1:0: the coordinator prints the page's address ($url)" $? "$tmp/live.out"

timeout -k 5 300 mpirun --oversubscribe --bind-to none "${mpi_env[@]}" -np 2 "$worker" \
    --connect "$ep" --quiet --timeout 10 >"$tmp/live.workers" 2>&1 &
mpid=$!

# /api/status while games flow: the --json progress object
games=0
for _ in $(seq 300); do
    http_get "${url}api/status" >"$tmp/status.http"
    games=$(body <"$tmp/status.http" | json_num games)
    [ "${games:-0}" -ge 4 ] && break
    sleep 0.2
done
body <"$tmp/status.http" >"$tmp/status.json"
[ "$(status_code <"$tmp/status.http")" = 200 ] && [ "${games:-0}" -ge 4 ] &&
    grep -q '"event":"progress"' "$tmp/status.json" && grep -q '"ranks":\[{' "$tmp/status.json" &&
    grep -q '"sprt":{' "$tmp/status.json" && grep -q '"run_id":"' "$tmp/status.json"
check "/api/status while games flow: the progress object, $games games stored" $? "$tmp/status.http"
grep -q '^Content-Type: application/json' <(tr -d '\r' <"$tmp/status.http")
check "/api/status is served as application/json" $? "$tmp/status.http"

http_get "${url}api/history" >"$tmp/history.http"
body <"$tmp/history.http" | grep -q '"points":\[\[[0-9.]*,[0-9]*,'
check "/api/history: chart points (seconds, games, Elo, error, LLR)" $? "$tmp/history.http"

http_get "$url" >"$tmp/page.http"
[ "$(status_code <"$tmp/page.http")" = 200 ] && grep -q 'id="games"' "$tmp/page.http" &&
    grep -q '<script src="/chart.js">' "$tmp/page.http" && ! grep -qi 'https\?://[a-z]' "$tmp/page.http"
check "/ serves the page, which loads every script from the coordinator" $? "$tmp/page.http"

if [ -r "$chartjs" ]; then
    http_get "${url}chart.js" >"$tmp/chart.http"
    [ "$(status_code <"$tmp/chart.http")" = 200 ] &&
        [ "$(body <"$tmp/chart.http" | wc -c)" -eq "$(wc -c <"$chartjs")" ]
    check "/chart.js is Debian's Chart.js ($chartjs)" $? "$(head -12 "$tmp/chart.http")"
else
    skip "/chart.js is Debian's Chart.js" "libjs-chart.js is not installed"
fi

http_get "${url}api/status" POST >"$tmp/post.http"
http_get "${url}nothing" >"$tmp/404.http"
[ "$(status_code <"$tmp/post.http")" = 405 ] && [ "$(status_code <"$tmp/404.http")" = 404 ]
check "read-only: POST is refused (405), an unknown path is 404" $? "$(cat "$tmp/post.http" "$tmp/404.http")"

# The page in a browser: its scripts ran and show the live count.
chromium=$(command -v chromium || command -v chromium-browser || true)
browse() {
    timeout -k 5 90 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/chromium" --virtual-time-budget=5000 "$@" 2>>"$tmp/chromium.err"
}
if [ -n "$chromium" ]; then
    browse --dump-dom "$url" >"$tmp/dom.html"
    shown=$(sed -n 's/.*id="games">\([0-9][0-9]*\)<.*/\1/p' "$tmp/dom.html" | head -1)
    [ -n "$shown" ] && [ "$shown" -ge "$games" ] && [ "$shown" -le 2000 ]
    check "headless Chromium: the rendered page shows the live game count ($shown >= $games)" $? \
        "$(grep -o 'id="[a-z_]*">[^<]*<' "$tmp/dom.html" | head -20)"
    if [ -r "$chartjs" ]; then
        grep -q '<canvas id="rate_chart"[^>]*width="[1-9]' "$tmp/dom.html" &&
            grep -q '<canvas id="llr_chart"[^>]*width="[1-9]' "$tmp/dom.html"
        check "headless Chromium: Chart.js drew the games/s and LLR charts" $? \
            "$(grep -o '<canvas[^>]*>' "$tmp/dom.html")"
    else
        skip "headless Chromium: Chart.js drew the charts" "libjs-chart.js is not installed"
    fi
    mkdir -p "$shot_dir"
    rm -f "$shot_dir/page.png"
    (cd "$tmp" && browse --window-size=1280,900 --screenshot="$shot_dir/page.png" "$url" >/dev/null)
    [ "$(head -c 8 "$shot_dir/page.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
    check "headless Chromium: a screenshot of the page in build/http/page.png" $? "$tmp/chromium.err"
else
    skip "headless Chromium: the rendered page shows the live game count" "chromium is not installed"
    skip "headless Chromium: Chart.js drew the charts" "chromium is not installed"
    skip "headless Chromium: a screenshot of the page" "chromium is not installed"
fi

# The address rule and a busy port, both judged before any file is made.
port=${url##*:}
port=${port%/}
"$coord" --bind 'tcp://127.0.0.1:*' --http 0.0.0.0:0 --out "$tmp/open.h5" >"$tmp/open.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q -- '--http-open' "$tmp/open.out" && [ ! -e "$tmp/open.h5" ]
check "--http 0.0.0.0:0 without --http-open: refused (status $rc), no run file" $? "$tmp/open.out"
"$coord" --bind 'tcp://127.0.0.1:*' --http "127.0.0.1:$port" --out "$tmp/busy.h5" >"$tmp/busy.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'cannot bind' "$tmp/busy.out" && [ ! -e "$tmp/busy.h5" ]
check "--http on a port in use: refused (status $rc), no run file" $? "$tmp/busy.out"
"$coord" --bind 'tcp://127.0.0.1:*' --http 127.0.0.1 --out "$tmp/bad.h5" >"$tmp/bad.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'ADDR:PORT' "$tmp/bad.out" && [ ! -e "$tmp/bad.h5" ]
check "--http without a port: refused (status $rc) with the form it takes" $? "$tmp/bad.out"

# Stopped: the run file is closed as always and the page is gone.
kill -TERM "$cpid"
wait_for "$cpid" 30
rc_c=$rc
wait_for "$mpid" 60
! http_get "${url}api/status" 2>/dev/null | grep -q '"event"'
page_gone=$?
[ "$rc_c" = 143 ] && [ $page_gone = 0 ] && verify "$tmp/live.h5" && [ "$(verify_count invalid)" = 0 ]
check "SIGTERM: status $rc_c, the run file verifies and the page is gone" $? "$tmp/live.err"
e2e_end
