#include "comm_mpi.h"

#include <limits.h>
#include <stdlib.h>

#include <mpi.h>

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

bool comm_mpi_init(Comm *c, int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return false;
    /* errors come back as codes, so every call site can report what failed */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    c->impl = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    c->sum_f64 = mpi_sum_f64;
    c->sum_f32 = mpi_sum_f32;
    c->sum_u64 = mpi_sum_u64;
    c->max_f64 = mpi_max_f64;
    c->bcast = mpi_bcast;
    c->exchange_u64 = mpi_exchange;
    return true;
}

void comm_mpi_finalize(void)
{
    MPI_Finalize();
}
