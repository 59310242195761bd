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
