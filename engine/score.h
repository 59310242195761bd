/*
 * Evaluation values. A Value is in centi-soldiers from the side to move's view. A Score
 * packs a midgame and an endgame value into one int (endgame in the high 16 bits) so
 * that a position's terms are added once and tapered once.
 */
#ifndef CHUHE_SCORE_H
#define CHUHE_SCORE_H

#include <stdint.h>

typedef int Value;
typedef int32_t Score;

enum {
    VALUE_ZERO = 0,
    VALUE_DRAW = 0,
    VALUE_MATE = 32000,
    VALUE_INFINITE = 32001,
    VALUE_NONE = 32002,
    MAX_PLY = 128,
    VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY,
    VALUE_MATED_IN_MAX_PLY = -VALUE_MATE_IN_MAX_PLY,
};

static inline Score S(int mg, int eg)
{
    return (Score)((uint32_t)eg << 16) + mg;
}

static inline int score_mg(Score s)
{
    return (int16_t)(uint16_t)(uint32_t)s;
}
static inline int score_eg(Score s)
{
    return (int16_t)(uint16_t)((uint32_t)(s + 0x8000) >> 16);
}

static inline Value value_mate_in(int ply)
{
    return VALUE_MATE - ply;
}
static inline Value value_mated_in(int ply)
{
    return -VALUE_MATE + ply;
}

#endif
