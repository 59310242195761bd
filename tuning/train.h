/*
 * Adam over the model's weights (model.h), full batch or mini-batches, with early
 * stopping on the validation loss, and checkpoints that hold everything needed to go on
 * as if never stopped: weights, both moment vectors, step, the random stream, the best
 * weights so far and the epoch history.
 *
 * An epoch: the validation loss of the current weights (the training loss of the
 * epoch's first step is measured at the same weights in full-batch mode), then one step
 * per mini-batch. So row e of the history holds the losses of the weights after e - 1
 * epochs (in mini-batch mode the training loss is the mean over the epoch's steps), and
 * best_epoch e names those weights; train_finish measures the weights after the last
 * epoch (best_epoch = epochs + 1 when they are the best). Mini-batch b of an epoch holds the
 * training positions whose hash(uid, epoch stream) mod nbatches is b: a partition that depends on
 * the data and the seed, not on how positions are spread over ranks. Each step sums the gradient of
 * every rank's part of the batch (one MPI_Allreduce of doubles) and every rank makes the
 * same update.
 */
#ifndef CHUHE_TRAIN_H
#define CHUHE_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    double lr_decay; /* the step size is lr * lr_decay^(e - 1) in epoch e */
    double reg;      /* weight of sum ((w - w0) / 100)^2 / ntrain added to the mean loss */
    bool symmetric;  /* mirrored points of a piece-square table move together (model.h) */
} TrainOptions;

void train_options_default(TrainOptions *o);

typedef struct {
    int epoch;
    double train_loss, valid_loss; /* valid_loss is NaN without a validation set */
    double seconds;
} EpochRow;

typedef struct {
    /* fixed for the run */
    double K;
    uint64_t ntrain, nvalid; /* positions over all ranks */
    double w0[MODEL_NW];     /* starting weights */
    /* the optimiser */
    int epoch; /* epochs done */
    uint64_t step;
    uint64_t rng;
    double w[MODEL_NW], m[MODEL_NW], v[MODEL_NW];
    /* early stopping */
    double best_w[MODEL_NW];
    double best_loss;
    int best_epoch; /* 0: none yet */
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
 * collective. Appends the epoch's row to s->hist. False only when a collective fails or
 * memory runs out.
 */
bool train_epoch(Comm *comm, const TrainOptions *o, TrainState *s, const Dataset *train,
                 const Dataset *valid, uint32_t *perm);

/* After the last epoch: the final weights become the best ones if their validation (or,
 * without one, training) loss is lower. A collective. */
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

/* The fingerprint of eval_terms.h: names and sizes of every term, in order. */
uint64_t train_terms_hash(void);

#endif
