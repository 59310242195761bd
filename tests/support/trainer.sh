# The common ground of the tuner's and the trainer's end-to-end tests, sourced after
# tap.sh with $bindir set (not a test itself); it sources engine.sh and sets
# engine=$bindir/chuhe-engine.
#
#   trainer_setup PROGRAM NAME  PROGRAM and $bindir/tests/test_tune (the run files'
#                               writer) required, the whole test skipped without mpirun
#                               ("NAME on MPI ranks"); a scratch folder $tmp (removed at
#                               exit), mpirun allowed as root, the sanitizer build's leak
#                               check off (OpenMPI's start-up allocations;
#                               tests/leaks_e2e.sh checks the programs' own leaks)
#   mpi NP ARGS...              PROGRAM on NP ranks under mpirun, at most 120 s
#   trainer_check_plot PNG OUTPUT
#                               a check: the loss curves drawn as PNG, or without gnuplot
#                               the warning that says so in OUTPUT (the program's)
#   trainer_runfile FILE GAMES SEED
#                               the run file of GAMES real games (test_tune
#                               --write-runfile), a check; a failure ends the test

. "$(dirname "${BASH_SOURCE[0]}")/engine.sh"
engine=$bindir/chuhe-engine

trainer_setup() {
    trainer_program=$1
    trainer_writer=$bindir/tests/test_tune
    tap_require "$trainer_program" "$trainer_writer"
    command -v mpirun >/dev/null 2>&1 || tap_skip_all "$2 on MPI ranks" "mpirun is not installed"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

mpi() {
    local np=$1
    shift
    timeout 120 mpirun --oversubscribe -np "$np" "$trainer_program" "$@"
}

trainer_runfile() {
    local out rc
    out=$("$trainer_writer" --write-runfile "$1" "$2" "$3" 2>&1)
    rc=$?
    [ $rc -eq 0 ] && [ -s "$1" ]
    check "a run file of $2 real games is written" $? "$out"
    [ $rc -eq 0 ] || { tap_end; exit 1; }
}

trainer_check_plot() {
    if command -v gnuplot >/dev/null 2>&1; then
        head -c 8 "$1" | od -An -tx1 | grep -q '89 50 4e 47'
        check "the loss curves are drawn as PNG" $? "$(ls -la "$(dirname "$1")")"
    else
        grep -q 'warning: gnuplot is not installed' <<<"$2"
        check "without gnuplot the plot is skipped with a warning" $? "$2"
    fi
}
