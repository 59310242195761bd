/*
 * The start every offline subcommand shares (export, verify, report, spsa-report,
 * stats, keygen): its command line read by the shared parser (engine/cliopt.h) from its
 * option table, --help from the table, refusals said in one form, and the run file
 * opened for reading.
 */
#ifndef CHUHE_COORD_SUBCMD_H
#define CHUHE_COORD_SUBCMD_H

#include <stdbool.h>

#include "cliopt.h"
#include "contracts/runfile.h"

typedef struct {
    const char *name;     /* "verify": messages say "chuhe-coordinator verify: ..." */
    const char *synopsis; /* "verify RUN.h5": the usage line after "chuhe-coordinator " */
    const char *words;    /* the words it needs, for a refusal: "RUN.h5" */
    int min_words, max_words;
    const CliOpt *opts; /* read into dest, in scope (cliopt.h) */
    int nopts;
    void *dest;
    unsigned scope;
    CliOptCall call; /* for CLIOPT_CALL rows, with ctx */
    void *ctx;
} CoordSubcmd;

/* A subcommand of one word (RUN.h5, NAME), its options opts[] read into dest. */
#define COORD_SUBCMD_ONE(name_, synopsis_, word_, opts_, dest_)                               \
    {                                                                                         \
        .name = name_, .synopsis = synopsis_, .words = word_, .min_words = 1, .max_words = 1, \
        .opts = opts_, .nopts = sizeof opts_ / sizeof opts_[0], .dest = dest_                 \
    }

/* The --help row every subcommand's table has. */
#define COORD_SUBCMD_HELP                                                      \
    {                                                                          \
        "--help", "-h", CLIOPT_HELP, 0, 0, 0, 0, 0, 0, NULL, "this text", NULL \
    }

/*
 * Reads argv[0..argc-1] (what follows the subcommand's name): its words go to
 * words[0..*nwords-1] (room for s->max_words), its options into s->dest. True to go on; else
 * false with *status the exit status: 0 after --help (the usage and the options on the
 * standard output), 2 for a refused command line (one line on stderr naming what was
 * wrong).
 */
bool coord_subcmd_args(const CoordSubcmd *s, int argc, char **argv, char **words, int *nwords,
                       int *status);

/* coord_subcmd_args for a subcommand of one word: that word; NULL with *status. */
const char *coord_subcmd_word(const CoordSubcmd *s, int argc, char **argv, int *status);

/* One line "chuhe-coordinator NAME: message" on stderr; returns status. */
int coord_subcmd_fail(const CoordSubcmd *s, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The run file at path opened for reading; NULL, said, when it cannot be. */
RunFile *coord_subcmd_open(const CoordSubcmd *s, const char *path);

#endif
