/*
 * Openings for self-play and matches: a start position and forced moves that both
 * games of a pair play before the engines take over.
 *
 * Two sources:
 *   - a file of positions, one FEN or EPD line each (opening_list_load);
 *   - random play: a number of uniformly random legal plies from a start position,
 *     reproducible from a 64-bit seed, optionally kept only when a short search finds
 *     the result roughly level (opening_random).
 * Every opening is checked before it is handed out: the moves are legal, and the
 * position they lead to has legal moves and no rules verdict, so a game never starts
 * already over.
 */
#ifndef CHUHE_OPENING_H
#define CHUHE_OPENING_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "record.h"

enum { OPENING_MAX_MOVES = 128, OPENING_DEFAULT_NODES = 2000, OPENING_DEFAULT_ATTEMPTS = 100 };

typedef struct {
    char fen[RECORD_FEN_MAX];      /* start position, as pos_get_fen writes it */
    int nmoves;                    /* forced moves from fen, 0..OPENING_MAX_MOVES */
    Move moves[OPENING_MAX_MOVES]; /* played in turn; recorded with RECORD_FLAG_OPENING */
} Opening;

typedef struct {
    Opening *items;
    int count;
    size_t capacity;
} OpeningList;

typedef struct {
    char msg[256];
} OpeningError;

/* Receives one message per rejected line, "path:line: reason". */
typedef void (*OpeningErrorFn)(void *ctx, const char *msg);

/* Checks an opening (see above) and normalises its FEN; false with the reason in err. */
bool opening_check(Opening *op, PosError *err);

/*
 * Parses one line of an opening file into op: a FEN ("board side - - halfmove
 * fullmove", the last four fields optional), or an EPD record whose four position
 * fields are followed by operations ("... - - hmvc 3; fmvn 12; id \"x\";"). The hmvc
 * and fmvn operations set the clocks; other operations are ignored. Returns false with
 * the reason in err; the opening is checked as opening_check does.
 */
bool opening_parse_line(Opening *op, const char *line, PosError *err);

void opening_list_init(OpeningList *list);
void opening_list_free(OpeningList *list);

/*
 * Appends the openings of a file to list. Blank lines and lines whose first non-blank
 * character is '#' are skipped. A bad line is reported through on_error (may be NULL)
 * and skipped; the good ones are kept. Returns the number of bad lines, or -1 with the
 * reason in err when the file cannot be read or memory runs out (the list then keeps
 * what it had before the call).
 */
int opening_list_load(OpeningList *list, const char *path, OpeningErrorFn on_error, void *ctx,
                      OpeningError *err);

/*
 * Appends the openings of a PGN file to list, one per game (pgn_read.h reads it): the
 * game's start position (its FEN tag, or the standard one) and its mainline moves, the
 * first max_plies of them when max_plies > 0 (as cutechess-cli's plies=N), all of them
 * otherwise. A line longer than OPENING_MAX_MOVES starts from the position before its
 * last OPENING_MAX_MOVES moves. A bad game (unreadable, an illegal move, a position
 * that is already over) is reported through on_error as "path: game N (line L):
 * reason" and skipped. Returns the number of bad games, or -1 with err set when the
 * file cannot be read or memory runs out (the list then keeps what it had).
 */
int opening_list_load_pgn(OpeningList *list, const char *path, int max_plies,
                          OpeningErrorFn on_error, void *ctx, OpeningError *err);

/* Random openings. The eval bound applies when engine is not NULL. */
typedef struct {
    const char *fen;  /* start position; NULL for the standard one */
    int plies;        /* random plies, 0..OPENING_MAX_MOVES */
    Engine *engine;   /* searches the result; NULL: no eval bound */
    uint64_t nodes;   /* node limit of that search; 0: OPENING_DEFAULT_NODES */
    int max_score;    /* keep the opening only if |score| <= max_score (centi-soldiers) */
    int max_attempts; /* seed derivations tried; 0: OPENING_DEFAULT_ATTEMPTS */
} RandomOpeningSpec;

typedef struct {
    int attempts; /* derivations tried, the accepted one included */
    int score;    /* the search score, side to move's view (0 without an engine) */
} RandomOpeningInfo;

/*
 * Plays spec->plies uniformly random legal plies from spec->fen. The moves depend only
 * on the seed and the position: attempt k (0, 1, ...) draws from the k-th derivation
 * of the seed, and the first attempt whose line never reaches a rules verdict and,
 * with an engine, whose search score is within the bound, is kept. The search starts
 * from engine_new_game(), so with a node limit the result is reproducible too. Returns
 * false with the reason in err when no attempt within max_attempts succeeds; info
 * (may be NULL) says how many were tried.
 */
bool opening_random(Opening *out, const RandomOpeningSpec *spec, uint64_t seed,
                    RandomOpeningInfo *info, OpeningError *err);

#endif
