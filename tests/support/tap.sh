# The TAP lines of the shell tests, sourced by tests/*.sh (not a test itself):
#
#   tap_require PROGRAM...        unless every PROGRAM is executable: "1..1", "not ok 1 -
#                                 PROGRAM is missing" and exit 1
#   tap_skip_all NAME REASON      "1..1", "ok 1 - NAME # SKIP REASON" and exit 0
#   tap_plan N                    the plan "1..N", for a test that knows its count at the start
#   check NAME STATUS [DETAIL]    "ok N - NAME" when STATUS is 0, else "not ok N - NAME"
#                                 followed by the detail as comment lines: the last 25 lines
#                                 of a file, or the last 40 of a text
#   skip NAME REASON              "ok N - NAME # SKIP REASON"
#   tap_end                       the plan "1..N" when tap_plan did not print one; the exit
#                                 status: 0 when no check failed

n=0 failed=0 tap_planned=0

tap_require() {
    local b
    for b in "$@"; do
        if [ ! -x "$b" ]; then
            echo "1..1"
            echo "not ok 1 - $b is missing"
            exit 1
        fi
    done
}

tap_skip_all() {
    echo "1..1"
    echo "ok 1 - $1 # SKIP $2"
    exit 0
}

tap_plan() {
    echo "1..$1"
    tap_planned=1
}

check() {
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        if [ -f "${3:-}" ]; then tail -25 "$3"; else printf '%s\n' "${3:-}" | tail -40; fi |
            sed 's/^/#   /'
        failed=$((failed + 1))
    fi
}

skip() {
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}

tap_end() {
    [ "$tap_planned" = 1 ] || echo "1..$n"
    [ "$failed" -eq 0 ]
}
