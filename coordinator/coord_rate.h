/*
 * Token buckets: the coordinator's per-worker message rate limit (and the bucket of the
 * log's gate, coord_log.h).
 */
#ifndef CHUHE_COORD_RATE_H
#define CHUHE_COORD_RATE_H

#include <stdbool.h>
#include <stdint.h>

/* `rate` tokens a second, at most `burst` saved; starts full. */
typedef struct {
    double tokens, burst, rate;
    double last; /* seconds, the time of the last refill */
} CoordRate;

void coord_rate_init(CoordRate *r, double rate, double burst, double now);

/* Takes a token; false when none is left (the caller drops what it was for). */
bool coord_rate_take(CoordRate *r, double now);

#endif
