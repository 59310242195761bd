/*
 * What chuhe-tune and chuhe-train do alike around their training, on every MPI rank:
 * the outputs checked on rank 0 before any work, each epoch's checkpoint, table row,
 * epoch table and progress line, and the epoch table and plot at the end. prog names
 * the program in its messages ("chuhe-tune").
 */
#ifndef CHUHE_SESSION_H
#define CHUHE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "comm.h"
#include "train.h"

/* Rank 0 writes every output, so rank 0 checks them (cli_check_outputs); every rank
 * returns the same: 0, or CLI_EXIT_USAGE after rank 0 reported the refusal. */
int session_check_outputs(Comm *comm, const Cli *c, const char *prog);

/* The mini-batch order's scratch (n entries) in *perm, on every rank; false on every rank
 * when a rank is out of memory or has too many positions for 32-bit indices. */
bool session_alloc_order(Comm *comm, uint64_t n, uint32_t **perm);

/* Rank 0, before the first epoch: the table's heading and the rows so far (a resumed
 * run's). */
void session_print_history(const EpochRow *hist, int nhist);

/* A trainer's checkpoint writer (train_save, nettrain_save) over its own state. */
typedef bool (*SessionSave)(const char *path, const void *state, const char *config,
                            uint64_t data_hash, char *err, size_t size);

/* The progress of a training run after an epoch. */
typedef struct {
    const EpochRow *hist;
    int nhist;
    int epoch; /* epochs done */
    double best_loss;
    int best_epoch;
    int epochs;       /* the last epoch */
    double per_epoch; /* seconds an epoch took in this session */
    bool checkpoint;  /* a checkpoint is due (--checkpoint-every) */
} SessionEpoch;

/*
 * After an epoch, on every rank: the checkpoint when due (rank 0 writes state with save
 * into c->ckpt; config and data_hash as the trainer's), then on rank 0 the table row it
 * wrote (of the weights it started from) on stdout, the epoch table in c->log, and
 * unless c->quiet the progress line on stderr. Every rank returns the same: false when
 * the checkpoint could not be written (rank 0 reported it).
 */
bool session_epoch_done(Comm *comm, const Cli *c, const char *prog, const SessionEpoch *e,
                        SessionSave save, const void *state, const char *config,
                        uint64_t data_hash);

/* After the last epoch and the trainer's finish (ok: both succeeded): rank 0 prints the
 * row of the final weights; 0, or 1 on every rank after a failure (reported). */
int session_epochs_end(Comm *comm, const char *prog, bool ok, const EpochRow *hist, int nhist);

/* Rank 0, at the end: the epoch table (c->log) and its plot (c->plot, titled "PROG:
 * loss by epoch"), each named on stdout, a failure a warning on stderr. */
void session_write_history(const Cli *c, const char *prog, const EpochRow *hist, int nhist);

#endif
