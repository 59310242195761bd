/*
 * The command lines of chuhe-tune and chuhe-train, from one option table: every option,
 * the programs that take it, its default and its check, and the usage text. Loading the
 * starting weights, naming the frozen terms and checking the output files happen here
 * too, so a bad option or file stops the program before any data is read.
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
#include "nettrain.h"
#include "nnue.h"
#include "train.h"

typedef enum { CLI_TUNE, CLI_TRAIN } CliProgram;

typedef struct {
    CliProgram prog;
    const char *out, *log, *plot, *ckpt, *weights, *match, *player, *baseline, *baseline_player;
    SprtParams sprt;
    char log_buf[4096], plot_buf[4096], ckpt_buf[4096];
    int ckpt_every, top;
    bool resume, quiet, bench, force, dry_run;
    uint64_t bench_positions;
    double K, lambda;
    char freeze[1024];
    LoadOptions load;
    TrainOptions train;
    /* chuhe-train */
    NetTrainOptions net;
    double bench_seconds;
    bool balance; /* the ranks of a node share their positions and split each step */
    int export_positions;
    double max_diff, mean_diff; /* the export check's bounds */
    const char *description;
    const char *init;                    /* --init: the network training starts from */
    char init_id[NNUE_WEIGHTS_ID_BYTES]; /* its weights' identity (nnue_weights_id) */
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

/* Reads the options of chuhe-tune into c (defaults first); print: whether --help and
 * --version print (rank 0 only). A bad number names the option, the text and the
 * accepted range. */
CliStatus cli_parse(Cli *c, int argc, char **argv, bool print, CliError *err);
/* The same for either program: an option of the other program is refused. */
CliStatus cli_parse_program(Cli *c, CliProgram prog, int argc, char **argv, bool print,
                            CliError *err);

/*
 * The files a tuning run writes, checked before any work starts (outpath.h): -o, --log,
 * --checkpoint (unless --checkpoint-every 0) and the temporary files they are written
 * through (PATH.tmp, renamed over PATH), and --plot. None may be an HDF5 file, an input
 * of the command (a run file, --weights, the checkpoint read by --resume) or another of
 * these outputs, name a folder or lie in a missing one; an existing one is replaced
 * only with --force, except that --resume rewrites its checkpoint and the TSV (both
 * are rewritten every epoch by the run it continues). With --resume the checkpoint must
 * be a checkpoint of the program. False with one line in err naming the option.
 */
bool cli_check_outputs(const Cli *c, CliError *err);

/* The --help text of chuhe-tune. */
void cli_usage(FILE *f);

#endif
