#include "timeman.h"

#include <time.h>

void time_limits_clear(SearchLimits *l)
{
    *l = (SearchLimits){0};
    l->time[RED] = l->time[BLACK] = -1;
}

int64_t time_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

TimePlan time_plan(const SearchLimits *l, Color us, int64_t overhead, int game_ply)
{
    TimePlan p = {0, 0};
    if (l->infinite)
        return p;
    if (l->movetime > 0) { /* searched to its end, as the UCI says: no optimum */
        int64_t t = l->movetime - overhead;
        p.maximum = t < 1 ? 1 : t;
        return p;
    }
    if (l->time[us] < 0)
        return p;

    int64_t left = l->time[us], inc = l->inc[us];
    /* Moves still to play: xiangqi games run long, so assume about 45 more moves early
     * in the game and never fewer than 20. */
    int mtg = l->movestogo > 0 ? (l->movestogo < 50 ? l->movestogo : 50) : 0;
    if (!mtg) {
        mtg = 45 - game_ply / 8;
        if (mtg < 20)
            mtg = 20;
    }
    int64_t pool = left + inc * (mtg - 1) - overhead * (mtg + 2);
    if (pool < 1)
        pool = 1;
    p.optimum = pool / mtg;
    p.maximum = p.optimum * 4;
    /* never more than a fraction of what is on the clock, minus the overhead */
    int64_t cap = (l->movestogo == 1 ? left * 8 / 10 : left / 4) - overhead;
    if (p.maximum > cap)
        p.maximum = cap;
    if (p.optimum > p.maximum)
        p.optimum = p.maximum;
    if (p.maximum < 1)
        p.maximum = 1;
    if (p.optimum < 1)
        p.optimum = 1;
    return p;
}
