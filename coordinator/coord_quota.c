#include "coord_quota.h"

#include <string.h>

void coord_quota_init(WorkerLimits *l, const CoordConfig *cfg, double now)
{
    memset(l, 0, sizeof *l);
    double burst = cfg->rate_burst > 0 ? cfg->rate_burst : 2 * cfg->rate_limit;
    coord_rate_init(&l->rate, cfg->rate_limit, burst, now);
}

LimitVerdict coord_quota_admit(WorkerLimits *l, const CoordConfig *cfg, double now)
{
    if (now < l->ignored_until) {
        l->ignored++;
        return DROP_IGNORED;
    }
    if (cfg->rate_limit <= 0 || coord_rate_take(&l->rate, now))
        return ADMIT;
    bool first = l->dropped == 0 || now - l->last_drop > LIMITS_PAUSE_SECONDS;
    if (first)
        l->dropped = 0;
    l->dropped++;
    l->last_drop = now;
    if (l->dropped >= (uint64_t)(LIMITS_FLOOD_BURSTS * l->rate.burst)) {
        l->ignored_until = now + LIMITS_IGNORE_SECONDS;
        l->ignored = l->dropped;
        l->dropped = 0;
        return DROP_FLOODING;
    }
    return first ? DROP_FIRST : DROP;
}

bool coord_quota_drops_ended(WorkerLimits *l, double now, uint64_t *dropped, bool *was_ignored)
{
    if (l->ignored_until > 0 && now >= l->ignored_until) {
        *dropped = l->ignored;
        *was_ignored = true;
        l->ignored_until = 0;
        l->ignored = 0;
        coord_rate_init(&l->rate, l->rate.rate, l->rate.burst, now);
        return true;
    }
    if (l->dropped && now - l->last_drop > LIMITS_PAUSE_SECONDS) {
        *dropped = l->dropped;
        *was_ignored = false;
        l->dropped = 0;
        return true;
    }
    return false;
}

static int find(const WorkerLimits *l, uint64_t pair)
{
    for (int k = 0; k < l->nheld; k++)
        if (l->held[k] == pair)
            return k;
    return -1;
}

static void remove_at(WorkerLimits *l, int k)
{
    l->nheld--;
    l->held[k] = l->held[l->nheld];
    l->acked[k] = l->acked[l->nheld];
}

void coord_quota_hold(WorkerLimits *l, uint64_t pair)
{
    if (find(l, pair) >= 0)
        return;
    if (l->nheld == COORD_MAX_INFLIGHT_CAP)
        remove_at(l, 0); /* cannot happen: no WORK goes out past --max-inflight */
    l->held[l->nheld] = pair;
    l->acked[l->nheld] = 0;
    l->nheld++;
}

void coord_quota_acked(WorkerLimits *l, uint64_t pair, unsigned game)
{
    int k = find(l, pair);
    if (k < 0 || game > 1)
        return;
    l->acked[k] |= (uint8_t)(1u << game);
    if (l->acked[k] == 3)
        remove_at(l, k);
}

void coord_quota_release(WorkerLimits *l, uint64_t pair)
{
    int k = find(l, pair);
    if (k >= 0)
        remove_at(l, k);
}

void coord_quota_release_all(WorkerLimits *l)
{
    l->nheld = 0;
}

int coord_quota_held(const WorkerLimits *l)
{
    return l->nheld;
}
