# The dialogue with bin/chuhe-engine (the program $engine) of the shell tests, sourced by
# tests/*.sh (not a test itself):
#
#   engine_run COMMANDS       pipes COMMANDS (printf %b) into a fresh engine and prints all
#                             it writes, within 60 s: for commands that finish before the
#                             input ends (perft, eval, bench)
#   engine_start              the engine as a coprocess, for commands that are timed and
#                             answered while a search runs
#   engine_send LINE...       writes lines to the coprocess
#   engine_expect RE MS       reads its lines into $got until one matches the extended
#                             regex RE; false after MS milliseconds
#   engine_stop               sends quit and waits 5 s for the coprocess to end, then kills it
#   engine_check NAME COMMANDS RE
#                             a check NAME: what COMMANDS (engine_run) make the engine
#                             write has a line matching the basic regex RE
#   engine_errors TEXT        how many lines of TEXT (what the engine wrote) are its error
#                             lines, "info string error: ..."
#   engine_refuses N TEXT MSG...
#                             whether TEXT has N error lines and every MSG (a fixed
#                             string) in them
#   engine_carried_on N TEXT  whether TEXT has N error lines and then readyok: each bad
#                             command refused in one line, the engine still answering
#   now_ms                    the clock in milliseconds

engine_run() { printf '%b' "$1" | timeout 60 "$engine" 2>&1; }

# From bash's own clock: engine_expect reads a line at a time, and a process started for
# each line (date, a subshell) made reading 80 lines take seconds on a loaded machine.
now_ms() {
    local t=${EPOCHREALTIME/[.,]/}
    echo $((t / 1000))
}

# The descriptors are copied: bash drops ENG as soon as the engine has exited.
engine_start() {
    coproc ENG { exec "$engine" 2>&1; }
    exec {engine_out}<&"${ENG[0]}" {engine_in}>&"${ENG[1]}"
    # shellcheck disable=SC2153 # ENG_PID is set by coproc
    engine_pid=$ENG_PID
}

engine_send() { printf '%s\n' "$@" >&"$engine_in"; }

engine_expect() {
    local re=$1 t=${EPOCHREALTIME/[.,]/} end left line secs
    end=$((t / 1000 + $2))
    got=""
    while :; do
        t=${EPOCHREALTIME/[.,]/}
        left=$((end - t / 1000))
        [ "$left" -gt 0 ] || return 1
        printf -v secs '%d.%03d' $((left / 1000)) $((left % 1000))
        IFS= read -r -t "$secs" line <&"$engine_out" || return 1
        got+="$line"$'\n'
        [[ $line =~ $re ]] && return 0
    done
}

engine_stop() {
    # the engine may have quit already: a write to its closed input must not kill us
    (trap '' PIPE && engine_send quit) 2>/dev/null
    timeout 5 tail --pid="$engine_pid" -f /dev/null 2>/dev/null || kill "$engine_pid" 2>/dev/null
    wait "$engine_pid" 2>/dev/null
    exec {engine_out}<&- {engine_in}>&-
}

engine_check() {
    local out
    out=$(engine_run "$2")
    grep -q -- "$3" <<<"$out"
    check "$1" $? "$out"
}

engine_errors() {
    grep -c '^info string error: ' <<<"$1"
}

engine_refuses() {
    local n=$1 text=$2 m
    shift 2
    [ "$(engine_errors "$text")" = "$n" ] || return 1
    for m in "$@"; do
        grep '^info string error: ' <<<"$text" | grep -qF -- "$m" || return 1
    done
}

engine_carried_on() {
    [ "$(engine_errors "$2")" = "$1" ] && grep -q '^readyok' <<<"$2"
}
