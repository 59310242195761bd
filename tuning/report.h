/*
 * What a tuning run leaves behind besides the weights: the per-epoch table (as text and
 * as TSV), a PNG of the loss curves drawn by gnuplot, and the parameters that moved most.
 */
#ifndef CHUHE_REPORT_H
#define CHUHE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "train.h"

/* "epoch  train_loss  valid_loss  seconds" */
void report_table_header(FILE *f);
void report_table_row(FILE *f, const EpochRow *row);

/* Writes the whole history as TSV (header line, one row per epoch). */
bool report_tsv(const char *path, const EpochRow *rows, int n, char *err, size_t errsize);

/* Whether gnuplot is on PATH. */
bool report_have_gnuplot(void);

/* Draws both loss curves of the TSV file into a PNG; false with the reason in err. */
bool report_plot(const char *tsv, const char *png, const char *title, char *err, size_t errsize);

/* The top parameters by how far their rounded midgame plus endgame values moved from
 * before to after: name, old mg/eg, new mg/eg. */
void report_moved(FILE *f, const double *before, const double *after, int top);

#endif
