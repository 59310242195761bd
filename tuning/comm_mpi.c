#include "comm_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "position.h"

/* MPI counts are ints: big buffers go in pieces of at most this many elements. */
enum { PIECE = 1 << 26 };

static bool reduce(void *buf, size_t n, MPI_Datatype type, MPI_Op op, size_t elem)
{
    for (size_t done = 0; done < n; done += PIECE) {
        int cnt = (int)(n - done < PIECE ? n - done : PIECE);
        if (MPI_Allreduce(MPI_IN_PLACE, (char *)buf + done * elem, cnt, type, op, MPI_COMM_WORLD) !=
            MPI_SUCCESS)
            return false;
    }
    return true;
}

static bool mpi_sum_f64(Comm *c, double *buf, size_t n)
{
    return c->size == 1 || reduce(buf, n, MPI_DOUBLE, MPI_SUM, sizeof *buf);
}

static bool mpi_sum_f32(Comm *c, float *buf, size_t n)
{
    return c->size == 1 || reduce(buf, n, MPI_FLOAT, MPI_SUM, sizeof *buf);
}

static bool mpi_sum_u64(Comm *c, uint64_t *buf, size_t n)
{
    return c->size == 1 || reduce(buf, n, MPI_UINT64_T, MPI_SUM, sizeof *buf);
}

static bool mpi_max_f64(Comm *c, double *buf, size_t n)
{
    return c->size == 1 || reduce(buf, n, MPI_DOUBLE, MPI_MAX, sizeof *buf);
}

static bool mpi_bcast(Comm *c, void *buf, size_t n, int root)
{
    if (c->size == 1)
        return true;
    for (size_t done = 0; done < n; done += PIECE) {
        int cnt = (int)(n - done < PIECE ? n - done : PIECE);
        if (MPI_Bcast((char *)buf + done, cnt, MPI_BYTE, root, MPI_COMM_WORLD) != MPI_SUCCESS)
            return false;
    }
    return true;
}

static bool mpi_exchange(Comm *c, const uint64_t *send, const uint64_t *counts, uint64_t **recv,
                         uint64_t *recv_counts)
{
    int n = c->size;
    int *sc = malloc(4 * (size_t)n * sizeof *sc);
    *recv = NULL;
    if (!comm_all_ok(c, sc != NULL)) {
        free(sc);
        return false;
    }
    int *sd = sc + n, *rc = sc + 2 * n, *rd = sc + 3 * n;
    bool ok = MPI_Alltoall((void *)counts, 1, MPI_UINT64_T, recv_counts, 1, MPI_UINT64_T,
                           MPI_COMM_WORLD) == MPI_SUCCESS;
    uint64_t stot = 0, rtot = 0;
    for (int r = 0; ok && r < n; r++) {
        if (counts[r] > INT_MAX || recv_counts[r] > INT_MAX || stot > INT_MAX || rtot > INT_MAX)
            ok = false;
        sc[r] = (int)counts[r], sd[r] = (int)stot, stot += counts[r];
        rc[r] = (int)recv_counts[r], rd[r] = (int)rtot, rtot += recv_counts[r];
    }
    /* one rank failing must not leave the others waiting: agree first */
    if (!comm_all_ok(c, ok && stot <= INT_MAX && rtot <= INT_MAX)) {
        free(sc);
        return false;
    }
    *recv = malloc(rtot ? rtot * sizeof **recv : 1);
    if (!comm_all_ok(c, *recv != NULL)) {
        free(*recv);
        *recv = NULL;
        free(sc);
        return false;
    }
    ok = MPI_Alltoallv((void *)send, sc, sd, MPI_UINT64_T, *recv, rc, rd, MPI_UINT64_T,
                       MPI_COMM_WORLD) == MPI_SUCCESS;
    free(sc);
    if (!ok) {
        free(*recv);
        *recv = NULL;
    }
    return ok;
}

/* The collectives over MPI_COMM_WORLD, in the order of Comm's members: sum_f64,
 * sum_f32, sum_u64, max_f64, bcast, exchange_u64 (rank and size are set at start). */
static const Comm MPI_OPS = {0,           0,         mpi_sum_f64,  mpi_sum_f32, mpi_sum_u64,
                             mpi_max_f64, mpi_bcast, mpi_exchange, NULL};

bool comm_mpi_init(Comm *c, int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return false;
    /* errors come back as codes, so every call site can report what failed */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    *c = MPI_OPS;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    return true;
}

void comm_mpi_finalize(void)
{
    MPI_Finalize();
}

/* The rank this process will have, read before MPI_Init from what the launcher put in
 * its environment (Open MPI, PMIx, PMI, Slurm); 0 for a process started alone. */
static int launcher_rank(void)
{
    static const char *const VARS[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof VARS / sizeof VARS[0]; i++) {
        const char *v = getenv(VARS[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

/* The options are read before MPI_Init: a mistyped command, --help and --version cost
 * no MPI start-up (rank 0, as the launcher numbers it, prints). */
int comm_mpi_main(int argc, char **argv, CliProgram which, const char *prog, CommMpiRun run)
{
    position_init();
    bool first = launcher_rank() == 0;
    Cli *c = malloc(sizeof *c);
    if (!c) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    CliError err;
    CliStatus st = cli_parse_program(c, which, argc, argv, first, &err);
    if (st != CLI_RUN) {
        if (st == CLI_ERROR && first)
            fprintf(stderr, "%s: %s\n", prog, err.msg);
        free(c);
        return st == CLI_ERROR ? CLI_EXIT_USAGE : 0;
    }
    Comm comm;
    if (!comm_mpi_init(&comm, &argc, &argv)) {
        fprintf(stderr, "%s: MPI_Init failed\n", prog);
        free(c);
        return 1;
    }
    int rc = run(&comm, c);
    free(c);
    comm_mpi_finalize();
    return rc;
}
