/*
 * Token buckets: the coordinator's per-worker message rate limit, and the gate that keeps
 * repeated log lines (refused connections, dropped messages) from flooding the log.
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

/* Log lines of one kind: at most 10 at once, then one a second, with a count of the lines
 * held back. */
typedef struct {
    CoordRate bucket;
    bool ready;
    uint64_t held_back;
} CoordLogGate;

/* Whether to write a line now; *held_back gets the lines held back since the last one
 * written (to be mentioned in this one). */
bool coord_log_gate(CoordLogGate *g, double now, uint64_t *held_back);

/* True, with their count, when lines were held back and one line may say so now. */
bool coord_log_gate_flush(CoordLogGate *g, double now, uint64_t *held_back);

#endif
