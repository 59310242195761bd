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
    void *impl;
};

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
static inline bool comm_bcast(Comm *c, void *buf, size_t n, int root)
{
    return c->bcast(c, buf, n, root);
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
