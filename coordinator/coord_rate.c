#include "coord_rate.h"

void coord_rate_init(CoordRate *r, double rate, double burst, double now)
{
    r->rate = rate;
    r->burst = burst < 1 ? 1 : burst;
    r->tokens = r->burst;
    r->last = now;
}

bool coord_rate_take(CoordRate *r, double now)
{
    if (now > r->last) {
        r->tokens += (now - r->last) * r->rate;
        if (r->tokens > r->burst)
            r->tokens = r->burst;
        r->last = now;
    }
    if (r->tokens < 1)
        return false;
    r->tokens -= 1;
    return true;
}

bool coord_log_gate(CoordLogGate *g, double now, uint64_t *held_back)
{
    if (!g->ready) {
        coord_rate_init(&g->bucket, 1, 10, now);
        g->ready = true;
    }
    if (!coord_rate_take(&g->bucket, now)) {
        g->held_back++;
        return false;
    }
    *held_back = g->held_back;
    g->held_back = 0;
    return true;
}

bool coord_log_gate_flush(CoordLogGate *g, double now, uint64_t *held_back)
{
    if (!g->ready || !g->held_back || !coord_rate_take(&g->bucket, now))
        return false;
    *held_back = g->held_back;
    g->held_back = 0;
    return true;
}
