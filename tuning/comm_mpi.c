#include "comm_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The counts and starts of every rank's part of n elements, in units of elem bytes:
 * made once for each (n, elem) a run uses (a few), so a training step costs no agreement
 * on them. NULL (on every rank alike) when out of memory or one does not fit an int. */
static int *part_counts(Comm *c, size_t n, size_t elem)
{
    static struct {
        size_t n, elem;
        int *cnt;
    } cache[8];
    for (size_t i = 0; i < sizeof cache / sizeof cache[0]; i++)
        if (cache[i].cnt && cache[i].n == n && cache[i].elem == elem)
            return cache[i].cnt;
    int *cnt = n <= (size_t)INT_MAX / elem ? malloc(2 * (size_t)c->size * sizeof *cnt) : NULL;
    if (!comm_all_ok(c, cnt != NULL)) {
        free(cnt);
        return NULL;
    }
    for (int r = 0; r < c->size; r++) {
        size_t a = comm_part(n, c->size, r), b = comm_part(n, c->size, r + 1);
        cnt[r] = (int)((b - a) * elem);
        cnt[c->size + r] = (int)(a * elem);
    }
    for (size_t i = 0; i < sizeof cache / sizeof cache[0]; i++)
        if (!cache[i].cnt) {
            cache[i].n = n, cache[i].elem = elem, cache[i].cnt = cnt;
            return cnt;
        }
    free(cache[0].cnt); /* a full cache: the oldest goes */
    memmove(cache, cache + 1, sizeof cache - sizeof cache[0]);
    size_t last = sizeof cache / sizeof cache[0] - 1;
    cache[last].n = n, cache[last].elem = elem, cache[last].cnt = cnt;
    return cnt;
}

static bool mpi_sum_part(Comm *c, const float *send, float *recv, size_t n)
{
    if (c->size == 1) {
        if (n)
            memcpy(recv, send, n * sizeof *recv);
        return true;
    }
    const int *cnt = part_counts(c, n, 1);
    return cnt &&
           MPI_Reduce_scatter(send, recv, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
}

static bool mpi_gather_parts(Comm *c, void *buf, size_t n, size_t elem)
{
    if (c->size == 1)
        return true;
    const int *cnt = part_counts(c, n, elem);
    return cnt && MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, cnt, cnt + c->size,
                                 MPI_BYTE, MPI_COMM_WORLD) == MPI_SUCCESS;
}

/* A node's shared segments: the node's communicator and the window over them. */
typedef struct {
    MPI_Comm node;
    MPI_Win win;
    bool locked;
} MpiShared;

static void mpi_share_free(Comm *c, CommShared **sp)
{
    (void)c;
    CommShared *s = *sp;
    if (!s)
        return;
    MpiShared *m = s->impl;
    if (m) {
        if (m->locked)
            MPI_Win_unlock_all(m->win);
        if (m->win != MPI_WIN_NULL)
            MPI_Win_free(&m->win);
        if (m->node != MPI_COMM_NULL)
            MPI_Comm_free(&m->node);
        free(m);
    }
    free(s->base);
    free(s->bytes);
    free(s);
    *sp = NULL;
}

static bool mpi_share_sync(Comm *c, CommShared *s)
{
    (void)c;
    MpiShared *m = s->impl;
    return MPI_Win_sync(m->win) == MPI_SUCCESS && MPI_Barrier(m->node) == MPI_SUCCESS &&
           MPI_Win_sync(m->win) == MPI_SUCCESS;
}

/* MPI_Win_allocate_shared over the ranks MPI_Comm_split_type puts on this node, each
 * segment where its rank prefers it (alloc_shared_noncontig), held open for loads and
 * stores (MPI_Win_lock_all) until freed. */
static CommShared *mpi_share(Comm *c, size_t bytes)
{
    CommShared *s = calloc(1, sizeof *s);
    MpiShared *m = calloc(1, sizeof *m);
    if (s && m) {
        s->impl = m;
        m->node = MPI_COMM_NULL;
        m->win = MPI_WIN_NULL;
    }
    bool ok = s && m && bytes <= (size_t)(((uint64_t)1 << 62));
    if (!comm_all_ok(c, ok) ||
        !comm_all_ok(c, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank,
                                            MPI_INFO_NULL, &m->node) == MPI_SUCCESS)) {
        mpi_share_free(c, &s);
        return NULL;
    }
    ok = MPI_Comm_size(m->node, &s->nlocal) == MPI_SUCCESS &&
         MPI_Comm_rank(m->node, &s->me) == MPI_SUCCESS;
    if (ok) {
        s->base = calloc((size_t)s->nlocal, sizeof *s->base);
        s->bytes = calloc((size_t)s->nlocal, sizeof *s->bytes);
        ok = s->base && s->bytes;
    }
    if (!comm_all_ok(c, ok)) {
        mpi_share_free(c, &s);
        return NULL;
    }
    MPI_Info info;
    void *mine = NULL;
    ok = MPI_Info_create(&info) == MPI_SUCCESS;
    if (ok) {
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        ok = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, m->node, &mine, &m->win) ==
             MPI_SUCCESS;
        MPI_Info_free(&info);
    }
    if (ok)
        ok = MPI_Win_set_errhandler(m->win, MPI_ERRORS_RETURN) == MPI_SUCCESS;
    for (int q = 0; ok && q < s->nlocal; q++) {
        MPI_Aint size;
        int disp;
        void *at;
        ok = MPI_Win_shared_query(m->win, q, &size, &disp, &at) == MPI_SUCCESS;
        s->base[q] = ok && size > 0 ? at : NULL;
        s->bytes[q] = ok ? (size_t)size : 0;
    }
    if (ok)
        ok = m->locked = MPI_Win_lock_all(MPI_MODE_NOCHECK, m->win) == MPI_SUCCESS;
#ifdef CHUHE_DEBUG
    /* the contents are undefined: a pattern in the checked builds, so that a read before
     * a write shows in the tests */
    if (ok && bytes)
        memset(mine, 0xa5, bytes);
#endif
    if (!comm_all_ok(c, ok) || !comm_all_ok(c, mpi_share_sync(c, s))) {
        mpi_share_free(c, &s);
        return NULL;
    }
    return s;
}

/* The collectives over MPI_COMM_WORLD, in the order of Comm's members: sum_f64,
 * sum_f32, sum_u64, max_f64, bcast, exchange_u64, sum_part_f32, gather_parts, then the
 * node's shared memory (rank and size are set at start). */
static const Comm MPI_OPS = {0,
                             0,
                             mpi_sum_f64,
                             mpi_sum_f32,
                             mpi_sum_u64,
                             mpi_max_f64,
                             mpi_bcast,
                             mpi_exchange,
                             mpi_sum_part,
                             mpi_gather_parts,
                             mpi_share,
                             mpi_share_sync,
                             mpi_share_free,
                             NULL};

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
