/*
 * 90-point bitboards: bit s stands for square s (rank * 9 + file), so a rank of the
 * board is 9 consecutive bits and shifting by 9 moves a set one rank up.
 */
#ifndef CHUHE_BITBOARD_H
#define CHUHE_BITBOARD_H

#include "types.h"

typedef unsigned __int128 Bitboard;

#define BB_EMPTY ((Bitboard)0)

static inline Bitboard bb_square(Square s)
{
    return (Bitboard)1 << s;
}
static inline bool bb_test(Bitboard b, Square s)
{
    return (b >> s) & 1;
}
static inline bool bb_any(Bitboard b)
{
    return b != 0;
}

static inline int bb_count(Bitboard b)
{
    return __builtin_popcountll((uint64_t)b) + __builtin_popcountll((uint64_t)(b >> 64));
}

static inline Square bb_lsb(Bitboard b)
{
    uint64_t lo = (uint64_t)b;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(b >> 64));
}

/* Removes and returns the lowest set square; b must not be empty. */
static inline Square bb_pop(Bitboard *b)
{
    Square s = bb_lsb(*b);
    *b &= *b - 1;
    return s;
}

static inline bool bb_more_than_one(Bitboard b)
{
    return (b & (b - 1)) != 0;
}

#endif
