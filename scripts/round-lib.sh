# The shell shared by the scripts that run a round in one folder (scripts/tune-loop,
# scripts/nnue-round); sourced, not run. The script sets, before calling these:
#   prog          its name, the prefix of its messages
#   round_keys    (the options kept in DIR/round.conf) and round_var KEY (their variable)
#   given         " the options of its command line, without their dashes "
#   here bindir dir ranks   for run_games
# and may define round_conf_norm KEY VALUE (the value as compared, e.g. a full path) and
# round_conf_refuse KEY VALUE (its own line for a key that differs).

say() { printf '%s: %s\n' "$prog" "$*" >&2; }
usage_error() { say "$*"; exit 2; }

# whole OPTION VALUE MIN MAX: VALUE is a whole number in MIN..MAX (at most 18 digits).
whole() {
    case $2 in
    '' | *[!0-9]*) usage_error "$1: '$2' is not a whole number (allowed: $3..$4)" ;;
    esac
    if [ ${#2} -gt 18 ] || [ "$((10#$2))" -lt "$3" ] || [ "$((10#$2))" -gt "$4" ]; then
        usage_error "$1: '$2' is out of range (allowed: $3..$4)"
    fi
}

# round_conf_load FILE: the round's settings (a line "option<TAB>value" each) replace the
# variables; an option given on the command line with another value is refused.
round_conf_load() {
    local key value var mine theirs
    while IFS=$'\t' read -r key value; do
        case " ${round_keys[*]} " in *" $key "*) ;; *) continue ;; esac
        var=$(round_var "$key")
        mine=${!var} theirs=$value
        if declare -F round_conf_norm >/dev/null; then
            mine=$(round_conf_norm "$key" "$mine") theirs=$(round_conf_norm "$key" "$theirs")
        fi
        if [[ $given == *" $key "* ]] && [ "$mine" != "$theirs" ]; then
            ! declare -F round_conf_refuse >/dev/null || round_conf_refuse "$key" "$value"
            usage_error "--resume: --$key '${!var}' differs from the round's '$value'" \
                "($1); leave the option out, or start a new round"
        fi
        printf -v "$var" '%s' "$value"
    done <"$1"
}

# round_conf_save FILE: the settings of the round, as round_conf_load reads them.
round_conf_save() {
    local key var
    for key in "${round_keys[@]}"; do
        var=$(round_var "$key")
        printf '%s\t%s\n' "$key" "${!var}"
    done >"$1"
}

# run_games NAME COORDINATOR-OPTIONS...: scripts/chuhe-run (a coordinator on a free
# loopback port, the MPI workers attached) writing DIR/NAME.h5, its output in NAME.log.
run_games() {
    local name=$1
    shift
    [ ! -e "$dir/$name.h5" ] || say "$name.h5 exists: the coordinator resumes it"
    if ! "$here/chuhe-run" -n "$ranks" --bindir "$bindir" --out "$dir/$name.h5" \
        --progress-interval 30 "$@" >"$dir/$name.log" 2>&1; then
        say "$name failed; the end of $dir/$name.log:"
        tail -8 "$dir/$name.log" >&2
        return 1
    fi
}
