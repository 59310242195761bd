/*
 * Training the network (netmodel.h): Adam over mini-batches, a step-decay schedule of
 * the learning rate, the clip after every step, the validation loss per epoch, the best
 * weights by that loss, and checkpoints that hold everything needed to go on as if never
 * stopped (weights, both moment vectors, step, the random stream, the best weights and
 * the epoch history).
 *
 * An epoch: the losses of the weights it starts from (validation measured whole, the
 * training loss the mean over the epoch's steps), then one step per mini-batch.
 * Mini-batch b of an epoch holds the training positions whose hash(uid, epoch stream)
 * mod nbatches is b (train_group_batches): the same batches on any number of ranks. Each
 * step sums every rank's gradient (one MPI_Allreduce of floats) and every rank makes the
 * same update, so 1 and N ranks differ only by the order of additions. History rows as
 * in train.h: row e holds the losses of the weights after e epochs.
 */
#ifndef CHUHE_NETTRAIN_H
#define CHUHE_NETTRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm.h"
#include "netdata.h"
#include "netmodel.h"
#include "netshare.h"
#include "train.h"

typedef struct {
    int hidden, buckets, scale; /* the architecture */
    int epochs;                 /* the last epoch */
    uint64_t batch;             /* positions per step over all ranks (about) */
    double lr, lr_drop;         /* the step size of epoch e (from 0): lr * lr_drop^(e / lr_step) */
    int lr_step;
    double beta1, beta2, eps;
    double lambda; /* target = lambda sigmoid(k score) + (1 - lambda) result */
} NetTrainOptions;

void nettrain_options_default(NetTrainOptions *o);

typedef struct {
    NetShape shape;
    double k; /* score to probability: sigmoid(k * score) */
    uint64_t ntrain, nvalid;
    int epoch;           /* epochs done */
    double last_seconds; /* how long the last of them took */
    uint64_t step, rng;
    float *w, *m, *v, *best_w; /* shape.nw each */
    double best_loss;
    int best_epoch; /* -1: none yet */
    int nhist;
    size_t hist_cap;
    EpochRow *hist;
    double sum_seconds, sum_cpu; /* wall and CPU time in the gradient sums (waiting
                                  * included); not saved */
    /* When step_wall is set (--bench): each step's computing by wall time on this rank
     * (the pass and the update, the collectives left out), up to step_wall_cap steps;
     * not saved */
    double *step_wall;
    size_t nstep_wall, step_wall_cap;
    /* When set, the training set is this node-shared one's (netshare.h) and the steps are
     * split among the node's ranks as they go; not saved */
    NetShare *share;
} NetTrain;

/* The mini-batches of an epoch over ntrain positions (on all ranks). */
uint64_t nettrain_batches(const NetTrainOptions *o, uint64_t ntrain);

/* A new state with seeded starting weights; NULL when out of memory or the shape is out
 * of range. */
NetTrain *nettrain_new(const NetTrainOptions *o, uint64_t seed, double k, uint64_t ntrain,
                       uint64_t nvalid);
void nettrain_free(NetTrain **t);

/* One epoch. perm is scratch of train->n entries (unused with t->share, whose train must
 * be the shared set's view of this rank). A collective; false only when a collective
 * fails or memory runs out. */
bool nettrain_epoch(Comm *comm, const NetTrainOptions *o, NetTrain *t, const NetSet *train,
                    const NetSet *valid, uint32_t *perm);

/* After the last epoch: the row of the final weights (both losses measured whole), which
 * become the best ones if their validation (or, without one, training) loss is lower. */
bool nettrain_finish(Comm *comm, const NetTrainOptions *o, NetTrain *t, const NetSet *train,
                     const NetSet *valid);

/* The summed losses of a whole set under w over every rank, and its size. */
bool nettrain_set_loss(Comm *comm, const NetTrain *t, const float *w, const NetSet *d,
                       double lambda, NetLoss *sum, double *count);

/* Checkpoints: config names every setting a resumed run must share and data_hash the
 * loaded positions; loading refuses another architecture, configuration or data set,
 * naming the difference. */
bool nettrain_save(const char *path, const NetTrain *t, const char *config, uint64_t data_hash,
                   char *err, size_t errsize);
NetTrain *nettrain_load(const char *path, const char *config, uint64_t data_hash, char *err,
                        size_t errsize);
/* Whether path opens with the mark of a chuhe-train checkpoint; false with the reason. */
bool nettrain_is_checkpoint(const char *path, char *err, size_t errsize);

#endif
