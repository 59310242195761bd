/*
 * chuhe-tune's command line: every option, its default and its check, and the usage
 * text. Loading the starting weights and naming the frozen terms happen here too, so a
 * bad option or file stops the program before any data is read.
 */
#ifndef CHUHE_CLI_H
#define CHUHE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "contracts/stats.h"
#include "eval_terms.h"
#include "loader.h"
#include "train.h"

typedef struct {
    const char *out, *log, *plot, *ckpt, *weights, *match, *player;
    SprtParams sprt;
    char log_buf[4096], plot_buf[4096], ckpt_buf[4096];
    int ckpt_every, top;
    bool resume, quiet, bench;
    uint64_t bench_positions;
    double K, lambda;
    char freeze[1024];
    LoadOptions load;
    TrainOptions train;
    EvalParams start;
    const char **files;
    int nfiles;
} Cli;

typedef struct {
    char msg[1400]; /* room for --freeze's list of every term */
} CliError;

typedef enum {
    CLI_RUN,   /* options read: go on */
    CLI_DONE,  /* --help or --version answered */
    CLI_ERROR, /* err says what is wrong; the program exits with CLI_EXIT_USAGE */
} CliStatus;

/* The exit status for a bad command line, as chuhe-coordinator uses. */
enum { CLI_EXIT_USAGE = 2 };

/* Reads the options into c (defaults first); print: whether --help and --version print
 * (rank 0 only). A bad number names the option, the text and the accepted range. */
CliStatus cli_parse(Cli *c, int argc, char **argv, bool print, CliError *err);

/* The --help text. */
void cli_usage(FILE *f);

#endif
