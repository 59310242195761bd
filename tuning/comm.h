/*
 * The tuner's view of its process group: rank, size and the few collectives it needs.
 * The modules of the tuner see only this interface, so the unit tests run them in one
 * process with no MPI (comm_serial), and bin/chuhe-tune plugs in MPI (comm_mpi.c).
 *
 * Every rank must make the same collective calls in the same order. Sums are of
 * doubles, floats (the network trainer's gradients) or 64-bit integers; a rank
 * contributes its partial sums, so results depend on the rank count only through the
 * order of the final few additions.
 */
#ifndef CHUHE_COMM_H
#define CHUHE_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Comm Comm;

/*
 * Memory that the ranks of one node share (the trainer's balanced steps read every
 * rank's positions): each rank brings a segment of its own size; base[q] is where node
 * rank q's segment lies in this process (NULL when it is empty). After writing into its
 * segment a rank calls comm_share_sync, with every rank of the node, before another
 * reads it.
 */
typedef struct {
    int nlocal, me; /* the node's ranks, and this one's place among them */
    void **base;
    size_t *bytes;
    void *impl;
} CommShared;

struct Comm {
    int rank, size;
    /* element-wise sum over ranks, in place */
    bool (*sum_f64)(Comm *c, double *buf, size_t n);
    bool (*sum_f32)(Comm *c, float *buf, size_t n);
    bool (*sum_u64)(Comm *c, uint64_t *buf, size_t n);
    bool (*max_f64)(Comm *c, double *buf, size_t n);
    /* the bytes of rank root to every rank */
    bool (*bcast)(Comm *c, void *buf, size_t n, int root);
    /*
     * All-to-all of 64-bit words: send holds the words for rank 0, then rank 1, ...,
     * counts[r] of them for rank r. On return *recv (malloc'd; the caller frees it)
     * holds what each rank sent here, rank 0's first, and recv_counts[r] their counts.
     */
    bool (*exchange_u64)(Comm *c, const uint64_t *send, const uint64_t *counts, uint64_t **recv,
                         uint64_t *recv_counts);
    /*
     * The element-wise sum over ranks of send[0, n), of which each rank keeps its own part
     * (comm_part): recv gets the sums of [comm_part(n, size, rank), comm_part(n, size,
     * rank + 1)).
     */
    bool (*sum_part_f32)(Comm *c, const float *send, float *recv, size_t n);
    /* Each rank's part of buf[0, n) (elements of elem bytes) to every rank, in place. */
    bool (*gather_parts)(Comm *c, void *buf, size_t n, size_t elem);
    /* A node-shared segment of bytes on every rank of the node, its contents undefined
     * (nothing touches its pages before the caller: they take memory as it writes them):
     * a collective over all ranks; NULL on every rank when one fails. */
    CommShared *(*share)(Comm *c, size_t bytes);
    /* The writes of every rank of the node seen by all of them (memory sync and a
     * barrier of the node). */
    bool (*share_sync)(Comm *c, CommShared *s);
    /* A collective over all ranks, as share. */
    void (*share_free)(Comm *c, CommShared **s);
    void *impl;
};

/* Where rank r's part of an array of n elements starts (r = size: n). The parts are
 * as even as whole multiples of COMM_PART_ALIGN elements allow (whole cache lines of
 * floats), so that ranks updating their parts never share a line. */
enum { COMM_PART_ALIGN = 16 };
static inline size_t comm_part(size_t n, int size, int r)
{
    if (r >= size)
        return n;
    size_t units = (n + COMM_PART_ALIGN - 1) / COMM_PART_ALIGN;
    size_t at = units * (size_t)r / (size_t)size * COMM_PART_ALIGN;
    return at < n ? at : n;
}

/* The one-process group: every collective is the identity. */
Comm *comm_serial(void);

static inline bool comm_sum_f64(Comm *c, double *buf, size_t n)
{
    return c->sum_f64(c, buf, n);
}
static inline bool comm_sum_f32(Comm *c, float *buf, size_t n)
{
    return c->sum_f32(c, buf, n);
}
static inline bool comm_sum_u64(Comm *c, uint64_t *buf, size_t n)
{
    return c->sum_u64(c, buf, n);
}
static inline bool comm_max_f64(Comm *c, double *buf, size_t n)
{
    return c->max_f64(c, buf, n);
}
static inline bool comm_sum_part_f32(Comm *c, const float *send, float *recv, size_t n)
{
    return c->sum_part_f32(c, send, recv, n);
}
static inline bool comm_gather_parts(Comm *c, void *buf, size_t n, size_t elem)
{
    return c->gather_parts(c, buf, n, elem);
}
static inline bool comm_bcast(Comm *c, void *buf, size_t n, int root)
{
    return c->bcast(c, buf, n, root);
}
static inline CommShared *comm_share(Comm *c, size_t bytes)
{
    return c->share(c, bytes);
}
static inline bool comm_share_sync(Comm *c, CommShared *s)
{
    return c->share_sync(c, s);
}
static inline void comm_share_free(Comm *c, CommShared **s)
{
    c->share_free(c, s);
}

/* Rank 0 prints "prog: " and the message on stderr; returns 1 (an exit status) on every
 * rank. For errors every rank knows of. */
int comm_fail(Comm *c, const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether every rank's ok is true (a collective: all ranks must call it). */
bool comm_all_ok(Comm *c, bool ok);

/* comm_all_ok that also hands the message (a string in msg[size]) of the lowest failing
 * rank to every rank, so that rank 0 can report what went wrong anywhere. */
bool comm_agree(Comm *c, bool ok, char *msg, size_t size);

#endif
