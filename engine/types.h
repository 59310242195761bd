/*
 * Basic types of the xiangqi board: colours, pieces, squares and moves.
 *
 * Squares are numbered rank * 9 + file, with files a..i = 0..8 from Red's left and
 * ranks 0..9 from Red's side, so a0 = 0, i0 = 8, a9 = 81 and i9 = 89. Red occupies
 * ranks 0..4 at the start and moves first.
 */
#ifndef CHUHE_TYPES_H
#define CHUHE_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t Key;

typedef enum { RED, BLACK, COLOR_NB } Color;

typedef enum {
    NO_PIECE_TYPE,
    KING, /* the general */
    ADVISOR,
    ELEPHANT, /* FEN b (alias e) */
    HORSE,    /* FEN n (alias h) */
    CHARIOT,  /* FEN r */
    CANNON,
    SOLDIER, /* FEN p */
    PIECE_TYPE_NB
} PieceType;

/* A piece is colour * 8 + type; 0 is the empty point. One row per colour. */
/* clang-format off */
typedef enum {
    NO_PIECE = 0,
    R_KING = 1, R_ADVISOR, R_ELEPHANT, R_HORSE, R_CHARIOT, R_CANNON, R_SOLDIER,
    B_KING = 9, B_ADVISOR, B_ELEPHANT, B_HORSE, B_CHARIOT, B_CANNON, B_SOLDIER,
    PIECE_NB = 16
} Piece;
/* clang-format on */

enum { FILE_NB = 9, RANK_NB = 10, SQUARE_NB = 90 };

typedef int Square;
enum { SQ_NONE = -1 };

/*
 * A move in 16 bits:  bits 0-6 from square, bits 7-13 to square.
 * MOVE_NONE (0) and MOVE_NULL (a0 to a0 with bit 14) are never legal board moves.
 */
typedef uint16_t Move;
enum { MOVE_NONE = 0, MOVE_NULL = 1 << 14 };

enum { MAX_MOVES = 128 }; /* the most legal moves known in a position is well under 128 */

static inline Color color_flip(Color c)
{
    return (Color)(c ^ 1);
}
static inline Piece piece_make(Color c, PieceType t)
{
    return (Piece)((c << 3) | t);
}
static inline PieceType piece_type(Piece p)
{
    return (PieceType)(p & 7);
}
static inline Color piece_color(Piece p)
{
    return (Color)(p >> 3);
}

static inline int sq_file(Square s)
{
    return s % FILE_NB;
}
static inline int sq_rank(Square s)
{
    return s / FILE_NB;
}
static inline Square sq_make(int file, int rank)
{
    return rank * FILE_NB + file;
}
static inline bool sq_valid(int file, int rank)
{
    return file >= 0 && file < FILE_NB && rank >= 0 && rank < RANK_NB;
}

static inline Move move_make(Square from, Square to)
{
    return (Move)(from | (to << 7));
}
static inline Square move_from(Move m)
{
    return m & 0x7f;
}
static inline Square move_to(Move m)
{
    return (m >> 7) & 0x7f;
}

/* Relative rank: 0 on one's own back rank, 9 on the enemy's. */
static inline int rank_relative(Color c, int rank)
{
    return c == RED ? rank : RANK_NB - 1 - rank;
}

/* A side's half of the board is ranks 0..4 for Red and 5..9 for Black. */
static inline bool sq_own_half(Color c, Square s)
{
    return rank_relative(c, sq_rank(s)) <= 4;
}

#endif
