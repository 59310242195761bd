/*
 * The results of a tournament between engines: games and complete pairs of every two
 * engines, the per-pairing statistics, the ranking and the crosstable, as text for the
 * final report and as JSON. Pure bookkeeping on counts (rebuilt from the run file on a
 * restart, so a resumed run reports the same numbers).
 *
 * Ranking: an engine's games, points (win 1, draw 1/2) and score (points / games)
 * count every stored game. Its Elo is the score-based Elo against the average
 * opponent ("Elo against the field"): the engine's complete pairs, each seen from the
 * engine (whoever the opponent), form one pentanomial sample, and Elo, its 95 % error
 * and LOS follow as for a match (stats.h): Elo = -400 log10(1/mu - 1) with mu the mean
 * pair score. Engines rank by score, then by points, then by their order on the
 * command line. The numbers say how an engine fared against this field, not a rating
 * on a common scale (cutechess and fastchess print the same kind of table).
 */
#ifndef CHUHE_COORD_CROSSTABLE_H
#define CHUHE_COORD_CROSSTABLE_H

#include <stdint.h>

#include "record.h"
#include "contracts/stats.h"
#include "strbuf.h"
#include "coord_tournament.h"

enum { XT_MAX = TOUR_MAX_ENGINES, XT_NAME_SIZE = 64 };

typedef struct {
    int n;                             /* engines, 2..XT_MAX */
    char names[XT_MAX][XT_NAME_SIZE];  /* "" prints as "engine N" */
    uint64_t wdl[XT_MAX][XT_MAX][3];   /* games of i against j: i's wins, draws, losses */
    StatsCounts pairs[XT_MAX][XT_MAX]; /* complete pairs of i against j, from i's view */
} Crosstable;

/* One ranking row. */
typedef struct {
    int engine;
    uint64_t games, wins, draws, losses;
    double points;
    double score;      /* points / games; 0.5 before any game */
    StatsCounts field; /* its complete pairs against every opponent, from its view */
    StatsEstimate est; /* from field, pentanomial */
} CrosstableRow;

/* Clears the counts for n engines (clamped to 2..XT_MAX); names become "". */
void coord_crosstable_init(Crosstable *t, int n);
void coord_crosstable_set_name(Crosstable *t, int e, const char *name);
const char *coord_crosstable_name(const Crosstable *t, int e, char buf[XT_NAME_SIZE]);

/* A stored game; engines outside 0..n-1 or equal are ignored. */
void coord_crosstable_add_game(Crosstable *t, int red, int black, Outcome o);
/* A complete pair: first had Red in game 0 (outcome o0) and Black in game 1 (o1). */
void coord_crosstable_add_pair(Crosstable *t, int first, int second, Outcome o0, Outcome o1);

/* The score of a game for the engine with the colour named: Red if red, else Black. */
StatsScore coord_crosstable_score(Outcome o, bool red);

/* The rows of all engines, best first; returns n. */
int coord_crosstable_ranking(const Crosstable *t, CrosstableRow rows[XT_MAX]);

/* The report: ranking, crosstable (points / games, engines in rank order) and one line
 * per pairing; each line starts with indent and ends in '\n'. */
void coord_crosstable_format(const Crosstable *t, const char *indent, StrBuf *out);

/* JSON members (no braces) "ranking":[...],"crosstable":{...},"pairings":[...]. */
void coord_crosstable_json(const Crosstable *t, StrBuf *out);

#endif
