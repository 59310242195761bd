#include "netshare.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The head of every rank's segment; the counters of node rank 0's serve the node. */
typedef struct {
    _Atomic uint64_t claim[2]; /* step b claims from claim[b & 1] */
    uint64_t n, nb;            /* the segment's positions and mini-batches */
} Head;

enum { HEAD_BYTES = 64 };
_Static_assert(sizeof(Head) <= HEAD_BYTES, "the head fits its cache line");

/* Where a segment's arrays lie (mem NULL: only the size); largest elements first, so
 * each starts aligned. Returns the segment's bytes. */
static size_t layout(uint64_t n, uint64_t nb, char *mem, NetSet *v, uint32_t **perm, uint64_t **off)
{
    size_t at = HEAD_BYTES;
#define PLACE(p, count)                        \
    do {                                       \
        (p) = mem ? (void *)(mem + at) : NULL; \
        at += (size_t)(count) * sizeof *(p);   \
    } while (0)
    PLACE(v->piece, n);
    PLACE(*off, nb + 1);
    PLACE(v->uid, n);
    PLACE(*perm, n);
    PLACE(v->score, n);
    PLACE(v->info, n);
    PLACE(v->result, n);
#undef PLACE
    v->n = v->cap = n;
    v->borrowed = true;
    return at;
}

static void share_free(NetShare *s)
{
    free(s->set);
    free(s->perm);
    free(s->off);
    free(s);
}

/*
 * Moves train's pieces (64 of its 72 bytes a position) into dst from the end, MOVE_ROWS
 * at a time, giving the rows moved back as it goes (a shrinking realloc of a large block
 * returns its pages): the move needs a chunk's room more than the set, not a second set.
 */
enum { MOVE_ROWS = 1 << 16 };

static void move_pieces(NetSet *train, uint16_t (*dst)[NETDATA_SLOTS])
{
    uint64_t n = train->n;
    while (n > 0) {
        uint64_t k = n > MOVE_ROWS ? MOVE_ROWS : n;
        n -= k;
        memcpy(dst + n, train->piece + n, k * sizeof *dst);
        void *q = realloc(train->piece, n ? n * sizeof *train->piece : 1);
        if (q) /* a shrink that fails keeps the larger block */
            train->piece = q;
    }
}

NetShare *netshare_new(Comm *comm, NetSet *train, uint64_t nb)
{
    NetSet v;
    uint32_t *perm;
    uint64_t *off;
    CommShared *mem = comm_share(comm, layout(train->n, nb, NULL, &v, &perm, &off));
    if (!mem)
        return NULL;
    NetShare *s = calloc(1, sizeof *s);
    size_t nl = (size_t)mem->nlocal;
    if (s) {
        s->set = calloc(nl, sizeof *s->set);
        s->perm = calloc(nl, sizeof *s->perm);
        s->off = calloc(nl, sizeof *s->off);
    }
    if (!comm_all_ok(comm, s && s->set && s->perm && s->off)) {
        if (s)
            share_free(s);
        comm_share_free(comm, &mem);
        return NULL;
    }
    s->mem = mem, s->nlocal = mem->nlocal, s->me = mem->me, s->nb = nb;
    char *mine = mem->base[mem->me];
    Head *h = (Head *)mine;
    atomic_init(&h->claim[0], 0);
    atomic_init(&h->claim[1], 0);
    h->n = train->n, h->nb = nb;
    layout(train->n, nb, mine, &v, &perm, &off);
    uint64_t n = train->n;
    if (n) {
        move_pieces(train, v.piece);
        memcpy(v.uid, train->uid, n * sizeof *v.uid);
        memcpy(v.score, train->score, n * sizeof *v.score);
        memcpy(v.info, train->info, n * sizeof *v.info);
        memcpy(v.result, train->result, n * sizeof *v.result);
    }
    if (!comm_all_ok(comm, comm_share_sync(comm, mem))) {
        netshare_free(comm, &s);
        netdata_free(train);
        return NULL;
    }
    for (int q = 0; q < s->nlocal; q++) {
        const Head *hq = (const Head *)mem->base[q];
        layout(hq->n, hq->nb, mem->base[q], &s->set[q], &s->perm[q], &s->off[q]);
    }
    netdata_free(train);
    *train = s->set[s->me];
    return s;
}

void netshare_free(Comm *comm, NetShare **sp)
{
    NetShare *s = *sp;
    if (!s)
        return;
    comm_share_free(comm, &s->mem);
    share_free(s);
    *sp = NULL;
}

static Head *node_head(const NetShare *s)
{
    return (Head *)s->mem->base[0];
}

bool netshare_epoch_begin(Comm *comm, NetShare *s)
{
    if (s->me == 0) {
        atomic_store(&node_head(s)->claim[0], 0);
        atomic_store(&node_head(s)->claim[1], 0);
    }
    return comm_share_sync(comm, s->mem);
}

bool netshare_chunk(const NetShare *s, uint64_t b, uint64_t c, int *q, uint64_t *lo, uint64_t *hi)
{
    for (int r = 0; r < s->nlocal; r++) {
        uint64_t a = s->off[r][b], e = s->off[r][b + 1];
        uint64_t chunks = (e - a + NETSHARE_CHUNK - 1) / NETSHARE_CHUNK;
        if (c < chunks) {
            *q = r;
            *lo = a + c * NETSHARE_CHUNK;
            *hi = *lo + NETSHARE_CHUNK < e ? *lo + NETSHARE_CHUNK : e;
            return true;
        }
        c -= chunks;
    }
    return false;
}

NetLoss netshare_step(NetShare *s, uint64_t b, const NetShape *shape, NetScratch *sc, double k,
                      double lambda, float *grad, uint64_t *count)
{
    Head *h = node_head(s);
    /* every rank is past step b - 1's claims (a collective lies between), and none can
     * reach step b + 1's before rank 0 is through step b's collectives */
    if (s->me == 0)
        atomic_store(&h->claim[(b + 1) & 1], 0);
    NetLoss L = {0, 0};
    uint64_t done = 0, lo, hi;
    int q;
    while (netshare_chunk(s, b, atomic_fetch_add(&h->claim[b & 1], 1), &q, &lo, &hi)) {
        NetLoss l =
            netmodel_pass_rounded(shape, sc, &s->set[q], s->perm[q] + lo, hi - lo, k, lambda, grad);
        L.loss += l.loss;
        L.result_loss += l.result_loss;
        done += hi - lo;
    }
    s->computed += done;
    *count = done;
    return L;
}
