/*
 * Exports from a run file (read side): positions as the "plain" training text of
 * Stockfish and Pikafish data tools, one block per position:
 *
 *   fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1
 *   move h2e2
 *   score 25
 *   ply 0
 *   result 0
 *   e
 *
 * fen and move are the position before the move and the move played (coordinates,
 * ranks 0-9); score is the search score in centi-soldiers and result the game's result
 * (1 win, 0 draw, -1 loss), both from the side to move's view; ply counts plies from the
 * game's start as the FEN's move number gives it. Positions come out in game order,
 * replayed from each game's start FEN.
 *
 * Games also come out as PGN, through the engine's PGN writer (pgn.h).
 */
#ifndef CHUHE_COORD_EXPORT_H
#define CHUHE_COORD_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "contracts/runfile.h"

/* Which positions to leave out; all false keeps every position. */
typedef struct {
    bool skip_opening;  /* the move came from the opening (RECORD_FLAG_OPENING) */
    bool skip_in_check; /* the side to move is in check */
    bool skip_captures; /* the move played is a capture */
    bool limit_score;   /* leave out |score| > max_score (e.g. mate scores)... */
    int max_score;      /* ...0 keeps the positions scored 0 only, as chuhe-tune does */
} ExportFilter;

typedef struct {
    uint64_t games;
    uint64_t positions; /* blocks written */
    uint64_t skipped;   /* positions the filter left out */
} ExportStats;

/*
 * Writes games [first_game, first_game + ngames) of a run file opened with
 * runfile_open_read (ngames = UINT64_MAX: to the last game) as plain text to out.
 * filter may be NULL; *stats (may be NULL) is filled even on failure, with what was done.
 */
bool coord_export_plain(RunFile *rf, uint64_t first_game, uint64_t ngames,
                        const ExportFilter *filter, FILE *out, ExportStats *stats, RunError *err);

/*
 * Writes the same range of games as PGN (pgn.h), with score/depth comments when asked:
 * Red/White and Black the /players names, Event "chuhe run <run id in hex>", Date the
 * run's creation date, Round "<pair id + 1>.<game in pair + 1>". stats->positions counts
 * the plies written.
 */
bool coord_export_pgn(RunFile *rf, uint64_t first_game, uint64_t ngames, bool comments, FILE *out,
                      ExportStats *stats, RunError *err);

/* The Event tag value of the run's games in PGN: "chuhe run <run id in hex>". */
void coord_export_pgn_event(RunFile *rf, char *buf, size_t size);

#endif
