/*
 * Time management: how long one move may take, from the UCI limits. The optimum is
 * the time after which no new iteration is started; the maximum is a hard stop.
 */
#ifndef CHUHE_TIMEMAN_H
#define CHUHE_TIMEMAN_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

/* The most root moves "go searchmoves" may name (more than any position has). */
enum { SEARCHMOVES_MAX = 128 };

typedef struct {
    int depth;              /* 0: no depth limit */
    uint64_t nodes;         /* 0: no node limit */
    int64_t movetime;       /* ms; 0: none */
    int64_t time[COLOR_NB]; /* ms left on each clock; -1: no clock given */
    int64_t inc[COLOR_NB];  /* ms added per move */
    int movestogo;          /* 0: sudden death or increment */
    bool infinite;          /* search until stopped */
    /* a ponder search: no time limit and no result until ponderhit or stop; the time
     * above is what the clock will show when the ponder move is played */
    bool ponder;
    int mate;    /* moves; 0: none. Stop once a mate in this many moves is found */
    int multipv; /* lines with distinct first moves; 0 or 1: one */
    /* the root moves to choose from; 0: every legal move */
    int nsearchmoves;
    Move searchmoves[SEARCHMOVES_MAX];
} SearchLimits;

typedef struct {
    int64_t optimum; /* ms; 0: none (no limit, or a fixed time a move, searched to its end) */
    int64_t maximum; /* ms; 0: no time limit */
} TimePlan;

/* Plans the time for the side to move, keeping overhead ms per move in reserve. */
TimePlan time_plan(const SearchLimits *limits, Color us, int64_t overhead, int game_ply);

int64_t time_now_ms(void);

void time_limits_clear(SearchLimits *limits);

#endif
