#!/usr/bin/env bash
# A slow UCI engine for the tests: usage slow.sh DELAY PROGRAM [ARGS...]. Runs PROGRAM
# with everything passed through, but holds the first "go" of every game for DELAY
# seconds.
delay=$1
shift
filter() {
    local first=1 line
    while IFS= read -r line; do
        case $line in
        ucinewgame) first=1 ;;
        go*)
            if [ $first = 1 ]; then
                sleep "$delay"
                first=0
            fi
            ;;
        esac
        printf '%s\n' "$line"
    done
}
exec "$@" < <(filter)
