/*
 * What a tuning run leaves behind besides the weights: the per-epoch table (as text and
 * as TSV), a PNG of the loss curves drawn by gnuplot, and the parameters that moved most.
 */
#ifndef CHUHE_REPORT_H
#define CHUHE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "loader.h"
#include "train.h"

/* A line on what the rows are, then "epoch  train_loss  valid_loss  seconds". Row N
 * holds the losses of the weights after N epochs; row 0, of the starting weights, is
 * marked "start". */
void report_table_header(FILE *f);
void report_table_row(FILE *f, const EpochRow *row);

/* Writes the whole history as TSV (header line, one row per epoch, from 0: the start). */
bool report_tsv(const char *path, const EpochRow *rows, int n, char *err, size_t errsize);

/* Draws both loss curves of the TSV file into a PNG (contracts/plot.h); false with the
 * reason in err. */
bool report_plot(const char *tsv, const char *png, const char *title, char *err, size_t errsize);

/* What the loader read, dropped and kept (the lines "read", "dropped", "kept" and, with
 * qresolve, "qresolve"). */
void report_load_stats(FILE *f, const LoadOptions *o, const LoadStats *s);

/* The top parameters by how far their rounded midgame plus endgame values moved from
 * before to after: name, old mg/eg, new mg/eg. */
void report_moved(FILE *f, const double *before, const double *after, int top);

#endif
