/*
 * The result of a finished match run, for closing the tuning loop: one player's games
 * against the others are counted from the run file (pairs when both of their games are
 * stored, single games otherwise), and the estimates, the SPRT and their text come from
 * the coordinator's statistics module (coordinator/stats.h), so the numbers are those
 * of the coordinator's own reports.
 */
#ifndef CHUHE_MATCH_H
#define CHUHE_MATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "contracts/stats.h"

typedef struct {
    char msg[600];
} MatchError;

/*
 * Counts the games of the player named player (or whose weights path is player; NULL:
 * player 0) in the run file at path, from that player's view.
 */
bool match_count(const char *path, const char *player, StatsCounts *out, int *player_id,
                 MatchError *err);

/* match_count, then the full report (with the SPRT when sprt is not NULL) on out.
 * Returns 0, or 1 after an error on err. */
int match_report(const char *path, const char *player, const SprtParams *sprt, FILE *out,
                 FILE *err);

#endif
