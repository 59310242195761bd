/*
 * Reading PGN: the tags and the mainline of each game of a file, for opening books.
 *
 * Movetext may be written in any of the notations xiangqi programs use, token by token:
 *   - coordinates as engines speak them, ranks 0-9 ("h2e2", also "h2-e2");
 *   - WXF ("C2.5", "H8+7", as chuhe's own PGN export writes);
 *   - algebraic (SAN) with ranks 1-10 as cutechess and Fairy-Stockfish write it ("Che3",
 *     "Nc3", "Rxa10", "e5"), or with ranks 0-9 as XBoard does ("Che2"): pieces K A B/E
 *     N/H R C P, a pawn's letter optional, disambiguation by file and/or rank, 'x', '+'
 *     and '#' allowed. A game is read with ranks 1-10, and with ranks 0-9 if that fails.
 * A four-character token of the coordinate form is read as coordinates. Move numbers
 * ("12." "12..."), comments ({...} and ; to the end of the line), variations (skipped,
 * nested), NAGs ($n, !, ?), escape lines (%) and the result token are understood.
 * A game ends at its result token, or at the next tag section. A FEN tag gives the
 * start position (the standard one without it).
 */
#ifndef CHUHE_PGN_READ_H
#define CHUHE_PGN_READ_H

#include <stdbool.h>

#include "pgn.h"
#include "position.h"
#include "record.h"

typedef struct {
    int number;               /* 1-based, in file order */
    long line;                /* where the game starts */
    char fen[RECORD_FEN_MAX]; /* the FEN tag; "" for the standard start position */
    int nmoves;               /* mainline moves read */
    Move moves[RECORD_MAX_PLIES];
} PgnGame;

typedef struct PgnReader PgnReader;

/* Opens path; NULL with err "path: reason" when it cannot be read or memory runs out. */
PgnReader *pgn_reader_open(const char *path, PgnError *err);
void pgn_reader_close(PgnReader **r);

/*
 * Reads the next game into g: its FEN tag and its mainline, each move checked legal
 * from the start position. With max_plies > 0 only the first max_plies moves are read
 * (the rest is skipped, unread). Returns 1 for a game, 0 at the end of the file, -1
 * with err "path: game N (line L): reason" for a bad game (a bad FEN tag or tag, an
 * illegal or unreadable move, a game longer than RECORD_MAX_PLIES), after which the
 * reader has skipped to the game's end, so the next call reads the next game; -2 with
 * err set when the file cannot be read on.
 */
int pgn_reader_next(PgnReader *r, PgnGame *g, int max_plies, PgnError *err);

/* One movetext token in any of the notations above (algebraic with ranks 1-10): the
 * legal move it names in pos, or MOVE_NONE with the reason in err (may be NULL). */
Move pgn_parse_move(const Position *pos, const char *token, PgnError *err);

#endif
