/*
 * The result of a finished match run, for closing the tuning loop: one player's games
 * against the others are counted from the run file (pairs when both of their games are
 * stored, single games otherwise), and the estimates, the SPRT and their text come from
 * the statistics module the coordinator shares (contracts/stats.h), so the numbers are
 * those of the coordinator's own reports.
 */
#ifndef CHUHE_MATCH_H
#define CHUHE_MATCH_H

#include <stdbool.h>
#include <stdint.h>
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

/*
 * One player in two runs played on the same openings (e.g. two builds, each against the
 * same opponent with the same book and seed): the openings whose pair of games is
 * stored in both runs are matched by start FEN and opening moves (an opening stored k
 * times in each run: its k-th pair with the k-th), and the pair scores are compared pair
 * by pair, which removes the openings' own share of the variance from the difference.
 */
typedef struct {
    uint64_t pairs;     /* openings matched: both games stored in both runs */
    double here, base;  /* the player's score per game on them, 0..1 */
    double diff_margin; /* 95 % half-width of here - base (0 with fewer than 2 pairs) */
    int player, base_player;
} MatchComparison;

/* Compares player in the run at path with base_player (NULL: player's name) in the run at
 * base_path. Fails with a message on err when a file or a player is missing, or when no
 * opening has its two games stored in both runs. */
bool match_compare(const char *path, const char *player, const char *base_path,
                   const char *base_player, MatchComparison *out, MatchError *err);

/* match_count, then the full report (with the SPRT when sprt is not NULL) on out, and
 * with base_path the comparison with that run (match_compare). Returns 0, or 1 after an
 * error on err. */
int match_report(const char *path, const char *player, const SprtParams *sprt,
                 const char *base_path, const char *base_player, FILE *out, FILE *err);

#endif
