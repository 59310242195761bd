/*
 * Run statistics: games, positions and results of the whole run (rebuilt from the run
 * file on a restart) and of this session (for the rates), and their text and JSON
 * forms for the progress line and the final summary.
 */
#ifndef CHUHE_COORD_STATS_H
#define CHUHE_COORD_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "stats.h"

typedef struct {
    uint64_t games, positions;
    uint64_t red_wins, draws, black_wins;
    uint64_t player[2][3]; /* per player of the pair: wins, draws, losses */
    uint64_t reasons[REASON_NB];
    /* this session */
    double start; /* monotonic seconds when the session began */
    uint64_t session_games, session_positions, session_nodes;
    uint64_t rejected, duplicates;
    /* the match: player 0 is engine A; pairs counted once both games are stored */
    StatsCounts match;
    bool has_sprt;
    SprtParams sprt;
    uint64_t time_losses[2], crashes[2], illegal[2]; /* per player */
} CoordStats;

/* What the stats do not hold: the schedule and the workers. */
typedef struct {
    uint64_t pairs_done, pairs_target, pairs_out;
    uint64_t requeued, dropped;
    int workers; /* live workers */
    double now;
} CoordStatsContext;

void coord_stats_init(CoordStats *st, double now);

/* Counts one stored game; red_player is the player (0 or 1) that had Red. nodes: the
 * engine nodes its moves took. session: stored in this session (not restored). */
void coord_stats_add(CoordStats *st, Outcome o, Reason reason, int plies, int red_player,
                     uint64_t nodes, bool session);

/* Counts a pair whose two games are stored: o0 the outcome of game 0 (player 0 Red),
 * o1 of game 1 (player 0 Black). */
void coord_stats_add_pair(CoordStats *st, Outcome o0, Outcome o1);

/* The SPRT's log-likelihood ratio and verdict on the pairs so far (pentanomial);
 * SPRT_CONTINUE without an SPRT. */
SprtState coord_stats_sprt(const CoordStats *st, double *llr);

/* The one-line progress text. */
void coord_stats_progress_text(const CoordStats *st, const CoordStatsContext *cx, char *buf,
                               size_t size);

/* A JSON object (one line, no newline) with "event": event, the members in extra (JSON
 * text such as "\"status\":\"complete\"", may be NULL) and the same numbers. With
 * final set, the endings by reason are added. */
void coord_stats_json(const CoordStats *st, const CoordStatsContext *cx, const char *event,
                      const char *extra, bool final, char *buf, size_t size);

/* The final summary, several lines, each ending in '\n'. */
void coord_stats_summary_text(const CoordStats *st, const CoordStatsContext *cx, char *buf,
                              size_t size);

#endif
