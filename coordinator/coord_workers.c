#include "coord_workers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "coord_log.h"

/* The routing id as the name for log lines until a HELLO gives a better one. */
static void name_from_identity(CoordWorker *w)
{
    bool printable = w->idlen > 0;
    for (size_t i = 0; i < w->idlen; i++)
        if (w->id[i] < 0x20 || w->id[i] > 0x7e)
            printable = false;
    if (printable) {
        snprintf(w->name, sizeof w->name, "%.*s", (int)w->idlen, (const char *)w->id);
        return;
    }
    size_t n = 0;
    n += (size_t)snprintf(w->name, sizeof w->name, "peer 0x");
    for (size_t i = 0; i < w->idlen && n + 3 < sizeof w->name; i++)
        n += (size_t)snprintf(w->name + n, sizeof w->name - n, "%02x", w->id[i]);
}

int coord_workers_find(CoordWorkers *t, const uint8_t *id, size_t len, const CoordConfig *cfg,
                       double now)
{
    for (int i = 0; i < t->count; i++)
        if (t->items[i].idlen == len && !memcmp(t->items[i].id, id, len))
            return i;
    if (!array_reserve((void **)&t->items, &t->cap, (size_t)t->count + 1, sizeof *t->items, 64))
        COORD_FATAL("out of memory for %d workers", t->count + 1);
    CoordWorker *w = &t->items[t->count];
    memset(w, 0, sizeof *w);
    memcpy(w->id, id, len);
    w->idlen = len;
    w->pair = -1;
    w->alive = true;
    w->last_seen = now;
    coord_quota_init(&w->limits, cfg, now);
    name_from_identity(w);
    return t->count++;
}

int coord_workers_live(const CoordWorkers *t)
{
    int n = 0;
    for (int i = 0; i < t->count; i++)
        n += t->items[i].alive;
    return n;
}

void coord_workers_hello(CoordWorker *w, const ProtoHello *h)
{
    w->hello = true;
    w->rank = h->rank;
    snprintf(w->host, sizeof w->host, "%s", h->hostname);
    snprintf(w->name, sizeof w->name, "rank %u/%u on %s (pid %u)", h->rank, h->world_size,
             h->hostname, h->pid);
    if (w->key[0])
        coord_log("worker joined: %s, version %s, key %s", w->name, h->version,
                  w->key_name[0] ? w->key_name : w->key);
    else
        coord_log("worker joined: %s, version %s", w->name, h->version);
    if (strcmp(h->version, CHUHE_VERSION))
        coord_log("note: %s runs version %s, the coordinator %s", w->name, h->version,
                  CHUHE_VERSION);
}

bool coord_workers_admit(CoordWorkers *t, int i, const CoordConfig *cfg, Schedule *sched,
                         CoordLogGate *gate, double now)
{
    CoordWorker *w = &t->items[i];
    LimitVerdict v = coord_quota_admit(&w->limits, cfg, now);
    if (v == DROP_FIRST) {
        uint64_t held_back;
        if (coord_log_gate(gate, now, &held_back))
            coord_log("rate limit: %s sends more than %g messages a second (burst %g): "
                      "dropping the excess",
                      w->name, cfg->rate_limit, w->limits.rate.burst);
    } else if (v == DROP_FLOODING) {
        int released = coord_sched_release_worker(sched, i);
        coord_quota_release_all(&w->limits);
        w->pair = -1;
        coord_log("rate limit: %s keeps flooding (%.0f messages dropped without a pause): "
                  "ignored for %.0f s%s",
                  w->name, LIMITS_FLOOD_BURSTS * w->limits.rate.burst, LIMITS_IGNORE_SECONDS,
                  released ? "; its pair is back in the queue" : "");
    }
    return v == ADMIT;
}

bool coord_workers_key_allowed(CoordWorker *w, const CoordAuth *auth, const char *key,
                               CoordLogGate *gate, double now)
{
    if (!coord_auth_curve(auth))
        return true;
    uint64_t gen = coord_auth_generation(auth);
    if (strcmp(key, w->key) || w->key_generation != gen || !w->key[0]) {
        const AllowedKey *k = coord_auth_find(auth, key);
        snprintf(w->key, sizeof w->key, "%s", key);
        snprintf(w->key_name, sizeof w->key_name, "%s", k ? k->name : "");
        w->key_generation = gen;
        w->key_allowed = k != NULL;
    }
    uint64_t held_back;
    if (!w->key_allowed && coord_log_gate(gate, now, &held_back))
        coord_log("dropped a message from %s: its key %s is no longer allowed", w->name,
                  key[0] ? key : "(none)");
    return w->key_allowed;
}

void coord_workers_sweep(CoordWorkers *t, const CoordConfig *cfg, Schedule *sched, double now)
{
    for (int i = 0; i < t->count; i++) {
        CoordWorker *w = &t->items[i];
        uint64_t dropped;
        bool ignored;
        if (coord_quota_drops_ended(&w->limits, now, &dropped, &ignored))
            coord_log("rate limit: %s %s (%llu messages dropped)", w->name,
                      ignored ? "is no longer ignored" : "is back within the limit",
                      (unsigned long long)dropped);
        if (!w->alive || now - w->last_seen <= cfg->heartbeat_timeout)
            continue;
        w->alive = false;
        coord_quota_release_all(&w->limits);
        int released = coord_sched_release_worker(sched, i);
        if (released == 1 && w->pair >= 0)
            coord_log("%s silent for %.0f s: pair %lld back in the queue", w->name,
                      now - w->last_seen, (long long)w->pair);
        else if (released)
            coord_log("%s silent for %.0f s: %d pairs back in the queue", w->name,
                      now - w->last_seen, released);
        else if (!w->told_done)
            coord_log("%s silent for %.0f s", w->name, now - w->last_seen);
        w->pair = -1;
    }
}

void coord_workers_free(CoordWorkers *t)
{
    free(t->items);
    t->items = NULL;
    t->count = 0;
    t->cap = 0;
}
