/*
 * A node's training positions shared by its ranks, and each step's work claimed from
 * them, so that the ranks of a node finish a step together even when their cores run
 * at different speeds.
 *
 * Each rank moves its shard of the training set, its mini-batch order and the batches'
 * bounds into memory the node's ranks share (comm_share). In step b every rank of the
 * node takes chunks of NETSHARE_CHUNK positions of any node rank's part of mini-batch b,
 * by an atomic counter, until the node's part is done, adding their gradient into its
 * own sum; the gradient sums then go over all ranks as before. The step's gradient is
 * the same sum, in an order that depends on which rank took which chunk: a run repeats
 * bit for bit only without sharing (chuhe-train --no-balance).
 *
 * Memory: the shard's 72 bytes a position and 4 of its order, once per node rank, as
 * without sharing (the move in gives the pieces' rows, 64 of the 72 bytes, back as it
 * copies them).
 */
#ifndef CHUHE_NETSHARE_H
#define CHUHE_NETSHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "comm.h"
#include "netdata.h"
#include "netmodel.h"

enum { NETSHARE_CHUNK = 256 };

typedef struct {
    CommShared *mem;
    int nlocal, me;
    NetSet *set;     /* set[q]: node rank q's shard (borrowed arrays) */
    uint32_t **perm; /* perm[q]: its mini-batch order (set[q].n entries) */
    uint64_t **off;  /* off[q]: where each of its nb mini-batches starts in it (nb + 1) */
    uint64_t nb;
    uint64_t computed; /* positions this rank computed, over all steps so far */
} NetShare;

/* Moves *train, this rank's shard for nb mini-batches an epoch, into node-shared memory;
 * *train becomes a view of it (its own arrays freed). A collective; NULL on every rank
 * when memory runs out somewhere (train is left as it was) or MPI fails after the move
 * (train is gone then). */
NetShare *netshare_new(Comm *comm, NetSet *train, uint64_t nb);

/* A collective; the views (and the set netshare_new was given) are invalid after it. */
void netshare_free(Comm *comm, NetShare **s);

/* Before an epoch's first step, once this rank has written perm[me] and off[me]: makes
 * every rank's order seen by the node and starts the step counters. A collective. */
bool netshare_epoch_begin(Comm *comm, NetShare *s);

/* Step b's share of this rank: chunks claimed until the node's part of mini-batch b is
 * done, their gradient added into grad (weights on sc's grid); returns their loss sums
 * and sets *count to the positions they held. Every rank of the node must call it for
 * b = 0, 1, ... with a collective over all of them between two steps (the gradient sums
 * are one), which is what lets a counter be started again. */
NetLoss netshare_step(NetShare *s, uint64_t b, const NetShape *shape, NetScratch *sc, double k,
                      double lambda, float *grad, uint64_t *count);

/* Which node rank's part and which positions of it claim c of step b stands for (the
 * chunks of rank 0's part first); false when c is past the step's last chunk. */
bool netshare_chunk(const NetShare *s, uint64_t b, uint64_t c, int *q, uint64_t *lo, uint64_t *hi);

#endif
