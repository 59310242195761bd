/*
 * Perft: the number of leaf nodes of the legal move tree, the standard check of a
 * move generator. The last ply is counted without making the moves.
 */
#ifndef CHUHE_PERFT_H
#define CHUHE_PERFT_H

#include "position.h"

uint64_t perft(Position *pos, int depth);

/* Calls back once per root move with its subtree count; returns the total. */
typedef void (*PerftDivideFn)(void *ctx, Move m, uint64_t nodes);
uint64_t perft_divide(Position *pos, int depth, PerftDivideFn fn, void *ctx);

#endif
