/*
 * `chuhe-coordinator report RUN.h5 --out DIR [--force]`: the figures of a finished run,
 * to check a training set before tuning (or a match after it), from the run file alone:
 *
 *   length        games by length in plies
 *   endings       games by how they ended, split by result
 *   scores        positions by search score (the mover's view; opening moves and mate
 *                 scores left out and counted in the note)
 *   score_result  score against result: the mover's mean result per score bucket, with
 *                 the K of 1 / (1 + exp(-K score)) that fits them best, as the tuner fits
 *                 its K to the evaluations
 *   phase         positions by game phase (eval_phase: PHASE_MAX with every chariot,
 *                 horse and cannon on the board)
 *   ranks         games per worker rank
 *   match         two players: the pentanomial counts and Elo, as the coordinator's
 *                 summary computes them (coord_runstats.h); more players: the ranking
 *
 * Each figure goes to stdout as text, to DIR/NAME.png through gnuplot, and with its text
 * to DIR/index.html (coord_reportpage.h). Every output path is checked before the run is read
 * (outpath.h): DIR may exist, files in it are replaced only with --force, and nothing is
 * ever written over the run file.
 */
#ifndef CHUHE_COORD_RUNREPORT_H
#define CHUHE_COORD_RUNREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "evaluate.h"
#include "record.h"
#include "coord_reportpage.h"
#include "coord_runstats.h"
#include "contracts/runfile.h"

enum {
    RUNREPORT_LENGTH_BIN = 10, /* plies */
    RUNREPORT_LENGTH_BINS = RECORD_MAX_PLIES / RUNREPORT_LENGTH_BIN + 1,
    RUNREPORT_SCORE_BIN = 50,    /* centi-soldiers */
    RUNREPORT_SCORE_CLIP = 1000, /* scores beyond +-this fall in the end buckets */
    RUNREPORT_SCORE_BINS = 2 * RUNREPORT_SCORE_CLIP / RUNREPORT_SCORE_BIN,
    RUNREPORT_FIGURES = 7,
};

typedef struct {
    uint32_t rank;
    uint64_t games;
} RunReportRank;

/* What the figures are made of: one pass over the games, one over the positions. */
typedef struct {
    int players;
    uint64_t games, positions;
    uint64_t length[RUNREPORT_LENGTH_BINS];
    uint64_t ending[REASON_NB][3]; /* Red won, draw, Black won */
    uint64_t opening;              /* positions before an opening move: no search score */
    uint64_t mates[2];             /* mate scores for and against the mover */
    uint64_t scored[RUNREPORT_SCORE_BINS];
    uint64_t wdl[RUNREPORT_SCORE_BINS][3]; /* the mover's result: win, draw, loss */
    double score_sum[RUNREPORT_SCORE_BINS];
    uint64_t phase[PHASE_MAX + 1];
    RunReportRank *ranks; /* by rank */
    int nranks;
    size_t ranks_cap;
    RunStats stats; /* the coordinator's statistics of the games: match, ranking */
} RunReport;

/* Reads every game and position of rf (opened with runfile_open_read). False with err
 * set when a read fails. */
bool coord_runreport_collect(RunFile *rf, RunReport *rep, RunError *err);
void coord_runreport_free(RunReport *rep);

/* The K of 1 / (1 + exp(-K score)) closest (least squares, weighted by positions) to the
 * mover's mean result per score bucket; 0 without scored positions. */
double coord_runreport_fit_k(const RunReport *rep);

/* The figures as tables (rep->players decides the last one), in the order above;
 * returns how many. Free each with coord_reportpage_free. */
int coord_runreport_tables(const RunReport *rep, ReportTable tables[RUNREPORT_FIGURES]);

/* The subcommand: arguments after "report"; returns the exit status. */
int coord_runreport_tool(int argc, char **argv);

#endif
