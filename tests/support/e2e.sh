# Helpers of the end-to-end shell tests, sourced by tests/*_e2e.sh (not a test itself)
# once they have set bindir: the programs under test, the TAP lines (tests/support/tap.sh),
# a scratch directory removed at exit together with the processes the test started, the
# MPI environment (root, sanitizer builds) and waits with deadlines.
#
#   coord, worker, client             bin/chuhe-coordinator, bin/chuhe-worker and
#                                     bin/tests/tools/wire_client under bindir; test_engines:
#                                     the folder of the test engines
#   e2e_begin NAME PLAN PROGRAMS...   checks the programs and mpirun (one SKIP line without
#                                     it) and prints the plan; sets tmp, mpi_env (mpirun -x
#                                     flags), san (1 in a sanitizer build) and root (the
#                                     repository); the test's background jobs still running
#                                     at exit are stopped
#   check, skip                       the TAP lines (tests/support/tap.sh)
#   wait_for PID SECONDS              waits, kills past the limit; sets rc (124: killed)
#   wait_line FILE PATTERN SECONDS [GREP-FLAGS]
#                                     waits for a line (-F for text holding a key)
#   section TITLE                     the seconds since the last section, as a comment
#   e2e_end                           the exit status: 0 when no check failed (tap_end)
#   e2e_nodes N SAN-N                 the node limit of a test's games: SAN-N in a
#                                     sanitizer build, which searches slower, else N
#   e2e_run NAME ARGS...              a coordinator and two worker ranks (see below)
#   e2e_start_coord NAME ARGS...      a coordinator (--json ARGS) in the background, its
#                                     output in $tmp/NAME.out and .err; sets cpid and ep
#                                     (a wildcard address as 127.0.0.1); false when it
#                                     does not listen within 10 s
#   summary NAME, field NAME KEY      the final JSON line of a run, one of its fields
#   verify RUN, verify_count NAME     `chuhe-coordinator verify RUN` into $tmp/verify.txt;
#                                     one of the counts it printed
#   verify_pairs RUN GAMES PAIRS      verify RUN: true when it holds GAMES games in PAIRS
#                                     full pairs, none twice and none invalid
# A test may define e2e_on_exit, which runs at exit once its processes are stopped.
# CHUHE_TEST_KEEP=1 keeps tmp.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$root/tests/support/tap.sh"
coord=$bindir/chuhe-coordinator
worker=$bindir/chuhe-worker
client=$bindir/tests/tools/wire_client
test_engines=$root/tests/engines

e2e_nodes() {
    if [ "$san" = 1 ]; then echo "$2"; else echo "$1"; fi
}

e2e_begin() {
    local name=$1 plan=$2
    shift 2
    tap_require "$@"
    command -v mpirun >/dev/null 2>&1 || tap_skip_all "$name" "mpirun missing"
    tap_plan "$plan"
    tmp=$(mktemp -d)
    trap e2e_cleanup EXIT
    if [ "$(id -u)" -eq 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    mpi_env=()
    san=0
    case $bindir in
    san | */san | */san/)
        san=1
        # LeakSanitizer's stop-the-world tracer now and then dies at the exit of a
        # process with MPI or ZeroMQ threads ("Tracer caught signal 11", a fatal error
        # that is no leak). The end-to-end tests check behaviour with leak detection
        # off; the leaks of these programs are checked by tests/leaks_e2e.sh, which
        # tells that crash apart from a leak report.
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
        export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
        mpi_env=(-x ASAN_OPTIONS -x UBSAN_OPTIONS)
        ;;
    esac
    e2e_started=$(date +%s.%N)
}

e2e_cleanup() {
    # only the background jobs still running: a process that has ended and been waited
    # for may have handed its pid to someone else's process by now
    local p live
    live=$(jobs -p)
    for p in $live; do kill -TERM "$p" 2>/dev/null; done
    [ -n "$live" ] && sleep 0.2
    for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null; done
    declare -F e2e_on_exit >/dev/null && e2e_on_exit
    if [ -n "${CHUHE_TEST_KEEP:-}" ]; then echo "# logs kept in $tmp"; else rm -rf "$tmp"; fi
}

wait_for() {
    local pid=$1 limit=$2 i
    for i in $(seq $((limit * 10))); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        rc=124
    else
        wait "$pid" 2>/dev/null # no "Killed" notice from the shell
        rc=$?
    fi
}

wait_line() {
    local i
    for i in $(seq $(($3 * 10))); do
        grep -q ${4:-} -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

section() {
    local now
    now=$(date +%s.%N)
    awk -v a="$e2e_started" -v b="$now" -v t="$1" 'BEGIN { printf "# %s: %.1f s\n", t, b - a }'
    e2e_started=$now
}

e2e_end() {
    tap_end
}

e2e_start_coord() {
    local name=$1 i
    shift
    "$coord" --json "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    cpid=$!
    ep=
    for i in $(seq 100); do
        ep=$(sed -n 's/.*"event":"listening","endpoint":"\([^"]*\)".*/\1/p' "$tmp/$name.out")
        ep=${ep/0.0.0.0/127.0.0.1}
        [ -n "$ep" ] && return 0
        kill -0 "$cpid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# e2e_run NAME COORDINATOR-ARGS...: a coordinator on a free port ($coord, --out
# $tmp/NAME.h5) and two worker ranks ($worker). JSON lines go to $tmp/NAME.out (the text
# report with text=1), the log to NAME.err, the workers' output to NAME.workers; sets
# rc_c and rc_w. With no_workers=1 only the coordinator runs (a restart of a finished
# run); with stop_after_workers=1 it is stopped once the workers are gone; worker_timeout
# (seconds, 180 by default) bounds the MPI job.
e2e_run() {
    local name=$1 ep='' cpid json=--json
    shift
    [ -n "${text:-}" ] && json=
    timeout -k 5 200 "$coord" --bind 'tcp://127.0.0.1:*' $json --progress-interval 0.5 \
        --drain-timeout 10 --out "$tmp/$name.h5" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    cpid=$!
    for _ in $(seq 100); do
        ep=$(sed -n -e 's/.*"event":"listening","endpoint":"\([^"]*\)".*/\1/p' \
            -e 's/^listening \([^ ]*\) .*/\1/p' "$tmp/$name.out" 2>/dev/null)
        [ -n "$ep" ] && break
        kill -0 "$cpid" 2>/dev/null || break
        sleep 0.1
    done
    rc_w=1
    if [ -n "${no_workers:-}" ]; then
        rc_w=0
    elif [ -n "$ep" ]; then
        timeout -k 5 "${worker_timeout:-180}" mpirun --oversubscribe --bind-to none "${mpi_env[@]}" -np 2 "$worker" \
            --connect "$ep" --quiet >"$tmp/$name.workers" 2>&1
        rc_w=$?
    fi
    # a run whose workers all failed never completes: stop its coordinator
    [ -n "${stop_after_workers:-}" ] && kill -TERM "$cpid" 2>/dev/null
    wait "$cpid"
    rc_c=$?
}

# summary NAME: the final JSON line; field NAME KEY: its first array or scalar KEY.
summary() { grep '"event":"summary"' "$tmp/$1.out" | tail -1; }
field() { summary "$1" | grep -o "\"$2\":\(\[[^]]*\]\|\"[^\"]*\"\|[^,}]*\)" | head -1; }

verify() { "$coord" verify "$1" >"$tmp/verify.txt" 2>&1; }
verify_count() { sed -n "s/^$1 //p" "$tmp/verify.txt"; }
verify_pairs() {
    verify "$1"
    [ "$(verify_count games)" = "$2" ] && [ "$(verify_count full_pairs)" = "$3" ] &&
        [ "$(verify_count duplicates)" = 0 ] && [ "$(verify_count invalid)" = 0 ]
}
