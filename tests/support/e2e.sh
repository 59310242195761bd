# Shared by the end-to-end shell tests that run a coordinator and MPI workers (sourced,
# not run): TAP output, a temporary directory cleaned up with the processes left in
# pids, mpirun as root, and the sanitizer build's environment.
#
#   e2e_begin "what is tested" PLAN BINARY...   exits with one TAP line when a binary
#                                               or mpirun is missing; sets tmp, pids,
#                                               san (1 for bin/san), mpi_env
#   check NAME STATUS [DETAIL-FILE-OR-TEXT]     one TAP line; the detail when it fails
#   skip NAME REASON

e2e_begin() {
    local what=$1 plan=$2 b
    shift 2
    for b in "$@"; do
        if [ ! -x "$b" ]; then
            echo "1..1"
            echo "not ok 1 - $b is missing"
            exit 1
        fi
    done
    if ! command -v mpirun >/dev/null 2>&1; then
        echo "1..1"
        echo "ok 1 - $what # SKIP mpirun missing"
        exit 0
    fi
    echo "1..$plan"
    n=0
    tmp=$(mktemp -d)
    pids=()
    trap e2e_cleanup EXIT
    if [ "$(id -u)" -eq 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    mpi_env=()
    san=
    case $bindir in
    san | */san | */san/)
        san=1
        # OpenMPI's own allocations at MPI_Init are not chuhe's leaks.
        export LSAN_OPTIONS="suppressions=$PWD/tests/data/lsan-mpi.supp:fast_unwind_on_malloc=0:print_suppressions=0"
        mpi_env=(-x LSAN_OPTIONS -x ASAN_OPTIONS -x UBSAN_OPTIONS)
        ;;
    esac
}

e2e_cleanup() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    if [ -n "${CHUHE_TEST_KEEP:-}" ]; then echo "# logs kept in $tmp"; else rm -rf "$tmp"; fi
}

check() {
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        if [ -f "${3:-}" ]; then sed 's/^/#   /' "$3" | tail -25; else printf '#   %s\n' "${3:-}"; fi
    fi
}

skip() {
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}
