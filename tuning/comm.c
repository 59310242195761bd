#include "comm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool serial_f64(Comm *c, double *buf, size_t n)
{
    (void)c, (void)buf, (void)n;
    return true;
}

static bool serial_f32(Comm *c, float *buf, size_t n)
{
    (void)c, (void)buf, (void)n;
    return true;
}

static bool serial_u64(Comm *c, uint64_t *buf, size_t n)
{
    (void)c, (void)buf, (void)n;
    return true;
}

static bool serial_bcast(Comm *c, void *buf, size_t n, int root)
{
    (void)c, (void)buf, (void)n, (void)root;
    return true;
}

static bool serial_exchange(Comm *c, const uint64_t *send, const uint64_t *counts, uint64_t **recv,
                            uint64_t *recv_counts)
{
    (void)c;
    size_t n = (size_t)counts[0];
    *recv = malloc(n ? n * sizeof **recv : 1);
    if (!*recv)
        return false;
    if (n)
        memcpy(*recv, send, n * sizeof **recv);
    recv_counts[0] = counts[0];
    return true;
}

static bool serial_sum_part(Comm *c, const float *send, float *recv, size_t n)
{
    (void)c;
    if (n)
        memcpy(recv, send, n * sizeof *recv);
    return true;
}

static bool serial_gather(Comm *c, void *buf, size_t n, size_t elem)
{
    (void)c, (void)buf, (void)n, (void)elem;
    return true;
}

/* One process: its segment alone, from calloc. */
static CommShared *serial_share(Comm *c, size_t bytes)
{
    (void)c;
    CommShared *s = calloc(1, sizeof *s);
    void **base = calloc(1, sizeof *base);
    size_t *len = calloc(1, sizeof *len);
    void *mem = bytes ? malloc(bytes) : NULL;
    if (!s || !base || !len || (bytes && !mem)) {
        free(s), free(base), free(len), free(mem);
        return NULL;
    }
#ifdef CHUHE_DEBUG
    if (bytes) /* undefined contents: a pattern in the checked builds (comm_mpi.c) */
        memset(mem, 0xa5, bytes);
#endif
    *s = (CommShared){1, 0, base, len, NULL};
    base[0] = mem, len[0] = bytes;
    return s;
}

static bool serial_share_sync(Comm *c, CommShared *s)
{
    (void)c, (void)s;
    return true;
}

static void serial_share_free(Comm *c, CommShared **s)
{
    (void)c;
    if (!*s)
        return;
    free((*s)->base[0]);
    free((*s)->base);
    free((*s)->bytes);
    free(*s);
    *s = NULL;
}

Comm *comm_serial(void)
{
    static Comm c = {0,
                     1,
                     serial_f64,
                     serial_f32,
                     serial_u64,
                     serial_f64,
                     serial_bcast,
                     serial_exchange,
                     serial_sum_part,
                     serial_gather,
                     serial_share,
                     serial_share_sync,
                     serial_share_free,
                     NULL};
    return &c;
}

bool comm_all_ok(Comm *c, bool ok)
{
    uint64_t bad = ok ? 0 : 1;
    if (!comm_sum_u64(c, &bad, 1))
        return false;
    return bad == 0;
}

bool comm_agree(Comm *c, bool ok, char *msg, size_t size)
{
    /* the lowest failing rank has the highest size - rank */
    double who = ok ? 0 : (double)(c->size - c->rank);
    if (!comm_max_f64(c, &who, 1)) {
        snprintf(msg, size, "MPI: a collective failed");
        return false;
    }
    if (who == 0)
        return true;
    int root = c->size - (int)who;
    if (!comm_bcast(c, msg, size, root))
        snprintf(msg, size, "MPI: a collective failed");
    msg[size - 1] = '\0';
    return false;
}

int comm_fail(Comm *c, const char *prog, const char *fmt, ...)
{
    if (c->rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s: ", prog);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return 1;
}
