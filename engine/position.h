/*
 * The position: board, bitboards, line occupancies, Zobrist key and the per-ply
 * history that the game rules read. Owns FEN in and out and make/unmake.
 *
 * Everything that changes lives in the struct; the only globals are the Zobrist
 * numbers and geometry tables built by position_init().
 */
#ifndef CHUHE_POSITION_H
#define CHUHE_POSITION_H

#include <stddef.h>

#include "attacks.h"
#include "bitboard.h"
#include "types.h"

/* History capacity in plies; boundaries that replay long games call
 * pos_trim_history() when pos_history_full() says so. */
enum { POS_HISTORY_MAX = 1024 };

/* What one ply changed, and what the rules need to know about the position it led to. */
typedef struct {
    Key key;                   /* key of the position after the move */
    Bitboard checkers;         /* pieces giving check to the side to move in that position */
    Move move;                 /* the move that led here (MOVE_NONE for the root entry) */
    uint8_t captured;          /* Piece captured by that move, NO_PIECE if none */
    uint8_t rule60;            /* counted plies since the last capture (60-move rule) */
    uint8_t check10[COLOR_NB]; /* checks given by each side since the last capture */
    uint16_t since_capture;    /* real plies since the last capture (or history start) */
} StateInfo;

typedef struct Position {
    uint8_t board[SQUARE_NB]; /* Piece on each point */
    Bitboard by_piece[PIECE_NB];
    Bitboard by_color[COLOR_NB];
    Bitboard occupied;
    uint16_t rank_occ[RANK_NB]; /* bit f set when (f, rank) is occupied */
    uint16_t file_occ[FILE_NB]; /* bit r set when (file, r) is occupied */
    Square king_sq[COLOR_NB];
    Color side;
    int game_ply; /* plies since the start of the game (from the FEN move number) */
    int hist_len; /* entries in hist; hist[hist_len - 1] is the current state */
    StateInfo hist[POS_HISTORY_MAX];
} Position;

typedef struct {
    char msg[160];
} PosError;

extern const char *const START_FEN;

/* Builds Zobrist numbers and geometry tables, once per process (thread-safe). A
 * position can only be made through pos_set_fen, which calls it, so a caller never
 * meets the tables unbuilt. */
void position_init(void);

/* Parses and validates a FEN; on failure returns false, fills err and leaves pos untouched. */
bool pos_set_fen(Position *pos, const char *fen, PosError *err);
/* The largest move number a FEN may give; pos_get_fen writes no larger one. */
enum { FEN_MOVE_NUMBER_MAX = 100000 };
/* Writes the FEN of the position into buf (at least 128 bytes is always enough). */
void pos_get_fen(const Position *pos, char *buf, size_t size);
/* Copies a position, history included (only the used part is copied). */
void pos_copy(Position *dst, const Position *src);

void pos_do_move(Position *pos, Move m);
void pos_undo_move(Position *pos);
void pos_do_null(Position *pos);
void pos_undo_null(Position *pos);

bool pos_gives_check(const Position *pos, Move m);

/* Full consistency check (debug builds assert it after each make/unmake). */
bool pos_is_ok(const Position *pos, const char **why);
/* Zobrist key computed from scratch. */
Key pos_compute_key(const Position *pos);

bool pos_history_full(const Position *pos);
/* Drops history before the last capture (it can never repeat); keeps the current entry. */
void pos_trim_history(Position *pos);

/* The occupancy of the rank and the file through s once from->to is played: what
 * legality and check tests read without making the move. */
static inline void pos_lines_after(const Position *pos, Square s, Square from, Square to,
                                   unsigned *ro, unsigned *fo)
{
    int f = sq_file(s), r = sq_rank(s);
    *ro = pos->rank_occ[r];
    *fo = pos->file_occ[f];
    if (sq_rank(from) == r)
        *ro &= ~(1u << sq_file(from));
    if (sq_file(from) == f)
        *fo &= ~(1u << sq_rank(from));
    if (sq_rank(to) == r)
        *ro |= 1u << sq_file(to);
    if (sq_file(to) == f)
        *fo |= 1u << sq_rank(to);
}

/* Pieces of colour `by` that attack s when exactly the points of occ are occupied: the
 * position's pieces off occ are gone (exchanges on s, scratch occupancies). by's general
 * attacks along the file when general_on_s, s holding the other general (flying
 * general). See attacks_to. */
static inline Bitboard pos_attackers_to(const Position *pos, Square s, Bitboard occ, Color by,
                                        bool general_on_s)
{
    return attacks_to(&pos->by_piece[piece_make(by, NO_PIECE_TYPE)], by, s, occ,
                      attacks_rank_occ(occ, sq_rank(s)), attacks_file_occ(occ, sq_file(s)),
                      general_on_s);
}

/* What a chariot (t = CHARIOT) or a cannon on s meets on the board as it stands: the
 * pieces it can take (the first along each line, or the second), and in *slide the
 * empty points it can move to. */
static inline Bitboard pos_slider_targets(const Position *pos, Square s, PieceType t,
                                          Bitboard *slide)
{
    unsigned ro = pos->rank_occ[sq_rank(s)], fo = pos->file_occ[sq_file(s)];
    *slide = attacks_slide(s, ro, fo);
    return t == CHARIOT ? attacks_hit1(s, ro, fo) : attacks_hit2(s, ro, fo);
}

/* Pieces of colour `by` that attack s on the board as it stands. */
static inline Bitboard pos_attackers(const Position *pos, Square s, Color by)
{
    return attacks_to(&pos->by_piece[piece_make(by, NO_PIECE_TYPE)], by, s, pos->occupied,
                      pos->rank_occ[sq_rank(s)], pos->file_occ[sq_file(s)],
                      pos->board[s] == piece_make(color_flip(by), KING));
}

static inline const StateInfo *pos_state(const Position *pos)
{
    return &pos->hist[pos->hist_len - 1];
}
static inline Key pos_key(const Position *pos)
{
    return pos_state(pos)->key;
}
static inline Bitboard pos_checkers(const Position *pos)
{
    return pos_state(pos)->checkers;
}
static inline bool pos_in_check(const Position *pos)
{
    return pos_state(pos)->checkers != 0;
}
static inline Piece pos_piece_on(const Position *pos, Square s)
{
    return (Piece)pos->board[s];
}
static inline Bitboard pos_pieces(const Position *pos, Color c, PieceType t)
{
    return pos->by_piece[piece_make(c, t)];
}
static inline Piece pos_captured(const Position *pos)
{
    return (Piece)pos_state(pos)->captured;
}
static inline bool pos_is_capture(const Position *pos, Move m)
{
    return pos->board[move_to(m)] != NO_PIECE;
}

/*
 * The three primitives: every change of the board goes through them. They keep the
 * board, bitboards, line occupancies and general squares in step, but not the key or
 * the history: pos_do_move does that. Exposed for exchange evaluation on scratch
 * copies of a position.
 */
static inline void pos_put_piece(Position *pos, Piece pc, Square s)
{
    pos->board[s] = (uint8_t)pc;
    pos->by_piece[pc] |= bb_square(s);
    pos->by_color[piece_color(pc)] |= bb_square(s);
    pos->occupied |= bb_square(s);
    pos->rank_occ[sq_rank(s)] |= (uint16_t)(1u << sq_file(s));
    pos->file_occ[sq_file(s)] |= (uint16_t)(1u << sq_rank(s));
}

static inline void pos_remove_piece(Position *pos, Square s)
{
    Piece pc = (Piece)pos->board[s];
    pos->board[s] = NO_PIECE;
    pos->by_piece[pc] ^= bb_square(s);
    pos->by_color[piece_color(pc)] ^= bb_square(s);
    pos->occupied ^= bb_square(s);
    pos->rank_occ[sq_rank(s)] ^= (uint16_t)(1u << sq_file(s));
    pos->file_occ[sq_file(s)] ^= (uint16_t)(1u << sq_rank(s));
}

static inline void pos_move_piece(Position *pos, Square from, Square to)
{
    Piece pc = (Piece)pos->board[from];
    Bitboard ft = bb_square(from) | bb_square(to);
    pos->board[from] = NO_PIECE;
    pos->board[to] = (uint8_t)pc;
    pos->by_piece[pc] ^= ft;
    pos->by_color[piece_color(pc)] ^= ft;
    pos->occupied ^= ft;
    pos->rank_occ[sq_rank(from)] ^= (uint16_t)(1u << sq_file(from));
    pos->file_occ[sq_file(from)] ^= (uint16_t)(1u << sq_rank(from));
    pos->rank_occ[sq_rank(to)] ^= (uint16_t)(1u << sq_file(to));
    pos->file_occ[sq_file(to)] ^= (uint16_t)(1u << sq_rank(to));
    if (piece_type(pc) == KING)
        pos->king_sq[piece_color(pc)] = to;
}

extern Key zobrist_psq[PIECE_NB][SQUARE_NB];
extern Key zobrist_side;

#endif
