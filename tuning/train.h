/*
 * Adam over the model's weights (model.h), full batch or mini-batches, with early
 * stopping on the validation loss, and checkpoints that hold everything needed to go on
 * as if never stopped: weights, both moment vectors, step, the random stream, the best
 * weights so far and the epoch history.
 *
 * An epoch: the validation loss of the current weights (the training loss of the
 * epoch's first step is measured at the same weights in full-batch mode), then one step
 * per mini-batch. Row e of the history holds the losses of the weights after e epochs
 * (row 0: the starting weights), written by the epoch that starts from them (in
 * mini-batch mode its training loss is the mean over that epoch's steps), and the
 * seconds of epoch e, the one that made them (0 for row 0); best_epoch e names those
 * weights. train_finish adds the row of the weights after the last epoch, both losses
 * measured whole. Mini-batch b of an epoch holds the training positions whose hash(uid,
 * epoch stream) mod nbatches is b: a partition that depends on the data and the seed,
 * not on how positions are spread over ranks. Each step sums the gradient of every
 * rank's part of the batch (one MPI_Allreduce of doubles) and every rank makes the same
 * update.
 */
#ifndef CHUHE_TRAIN_H
#define CHUHE_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ckptio.h"
#include "comm.h"
#include "dataset.h"
#include "model.h"

typedef struct {
    int epochs;     /* the last epoch */
    uint64_t batch; /* positions per step over all ranks (about); 0: full batch */
    double lr, beta1, beta2, eps;
    int patience; /* stop after this many epochs without a better validation loss; 0: never */
    uint64_t seed;
    uint8_t frozen[EVAL_PARAM_NB]; /* nonzero: the parameter keeps its starting value */
    double lr_decay;               /* the step size is lr * lr_decay^(e - 1) in epoch e */
    double reg;     /* weight of sum ((w - w0) / 100)^2 / ntrain added to the mean loss */
    bool symmetric; /* mirrored points of a piece-square table move together (model.h) */
} TrainOptions;

void train_options_default(TrainOptions *o);

typedef struct {
    int epoch;                     /* the weights after this many epochs; 0: the start */
    double train_loss, valid_loss; /* valid_loss is NaN without a validation set */
    double seconds;                /* of the epoch that made these weights; 0 for the start */
} EpochRow;

typedef struct {
    /* fixed for the run */
    double K;
    uint64_t ntrain, nvalid;                   /* positions over all ranks */
    _Alignas(MODEL_ALIGN) double w0[MODEL_NW]; /* starting weights */
    /* the optimiser */
    int epoch;           /* epochs done */
    double last_seconds; /* how long the last of them took (0: none yet) */
    uint64_t step;
    uint64_t rng;
    _Alignas(MODEL_ALIGN) double w[MODEL_NW];
    _Alignas(MODEL_ALIGN) double m[MODEL_NW];
    _Alignas(MODEL_ALIGN) double v[MODEL_NW];
    /* early stopping */
    _Alignas(MODEL_ALIGN) double best_w[MODEL_NW];
    double best_loss;
    int best_epoch; /* the best weights are those after this many epochs; -1: none yet */
    int bad_epochs;
    bool stopped;
    int nhist;
    size_t hist_cap;
    EpochRow *hist;
} TrainState;

/* A new state (malloc'd) starting from w0; NULL when out of memory. */
TrainState *train_new(const TrainOptions *o, const double *w0, double K, uint64_t ntrain,
                      uint64_t nvalid);
void train_free(TrainState **s);

/*
 * One epoch. perm is scratch of train->n entries (unused in full-batch mode). A
 * collective. Appends the row of the weights it starts from to s->hist. False only when
 * a collective fails or memory runs out.
 */
bool train_epoch(Comm *comm, const TrainOptions *o, TrainState *s, const Dataset *train,
                 const Dataset *valid, uint32_t *perm);

/* After the last epoch: appends the row of the final weights, which become the best ones
 * if their validation (or, without one, training) loss is lower. A collective. */
bool train_finish(Comm *comm, TrainState *s, const Dataset *train, const Dataset *valid);

/*
 * Checkpoints. config names every setting a resumed run must share (selection, seed,
 * batch, learning rate, ...) and data_hash the loaded positions; loading refuses a
 * checkpoint of another term list, configuration or data set, naming the difference.
 */
bool train_save(const char *path, const TrainState *s, const char *config, uint64_t data_hash,
                char *err, size_t errsize);
TrainState *train_load(const char *path, const char *config, uint64_t data_hash, char *err,
                       size_t errsize);

/* Whether path opens with the mark of a checkpoint this build reads (checked before any
 * data is loaded; train_load checks the rest); false with the reason in err. */
bool train_is_checkpoint(const char *path, char *err, size_t errsize);

/*
 * Mini-batches: this rank's n positions grouped by batch, perm[off[b] .. off[b + 1]) the
 * positions of batch b of nb; a position's batch is a hash of its uid and the epoch's
 * seed, so a batch holds the same positions on any number of ranks. off has nb + 1
 * entries.
 */
void train_group_batches(const uint32_t *uid, uint64_t n, uint64_t nb, uint64_t eseed,
                         uint32_t *perm, uint64_t *off);

/* Appends row to a growing history (array.h); false when out of memory. */
bool train_history_push(EpochRow **hist, int *nhist, size_t *cap, const EpochRow *row);

/* The history in a checkpoint (both trainers'): i32 count, then a row each: epoch i32,
 * train_loss, valid_loss, seconds f64. Reading appends to *hist; false when the
 * checkpoint (len bytes) is truncated or memory runs out. */
void train_history_put(CkptOut *o, const EpochRow *hist, int nhist);
bool train_history_get(CkptIn *in, size_t len, EpochRow **hist, int *nhist, size_t *cap);

#endif
