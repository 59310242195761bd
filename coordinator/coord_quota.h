/*
 * What one worker may do: how many messages a second it may send (a token bucket: the
 * excess is dropped, and a worker that keeps flooding is ignored for a while), and how
 * many pairs it may hold that the coordinator has not yet acknowledged (it gets WAIT
 * instead of a new pair until ACKs have gone out).
 *
 * A pair is held from its WORK until an ACK for each of its games has been sent to the
 * worker (stored, duplicate or rejected), or it leaves the worker (re-queued after a
 * silence, released, dropped). ACKs wait for the run file's flush, so a worker that
 * finishes pairs faster than the group commit acknowledges them is held back here.
 */
#ifndef CHUHE_COORD_QUOTA_H
#define CHUHE_COORD_QUOTA_H

#include <stdbool.h>
#include <stdint.h>

#include "coord_config.h"
#include "coord_rate.h"

enum {
    /* a worker dropping this many bursts' worth of messages without a second's pause is
     * flooding */
    LIMITS_FLOOD_BURSTS = 10,
};
#define LIMITS_IGNORE_SECONDS 60.0 /* how long a flooding worker is ignored */
#define LIMITS_PAUSE_SECONDS 1.0   /* a pause this long ends a run of dropped messages */

typedef struct {
    CoordRate rate;
    uint64_t dropped;     /* messages dropped in the current run of drops */
    double last_drop;     /* when the last one was dropped */
    double ignored_until; /* flooding: every message is dropped until then */
    uint64_t ignored;     /* messages dropped while ignored */
    int nheld;
    uint64_t held[COORD_MAX_INFLIGHT_CAP];
    uint8_t acked[COORD_MAX_INFLIGHT_CAP]; /* bit g: game g of the pair acknowledged */
} WorkerLimits;

typedef enum {
    ADMIT,         /* handle the message */
    DROP_FIRST,    /* dropped, the first of a run (worth a log line) */
    DROP,          /* dropped */
    DROP_FLOODING, /* dropped, and from now on the worker is ignored (worth a log line) */
    DROP_IGNORED,  /* dropped: the worker is being ignored */
} LimitVerdict;

void coord_quota_init(WorkerLimits *l, const CoordConfig *cfg, double now);

/* Whether a message that just came in is handled. */
LimitVerdict coord_quota_admit(WorkerLimits *l, const CoordConfig *cfg, double now);

/* True once, with the count, when a run of drops has ended (a pause) or an ignored
 * worker's time is over. */
bool coord_quota_drops_ended(WorkerLimits *l, double now, uint64_t *dropped, bool *was_ignored);

/* Pairs held: a new WORK; an ACK sent for game g; the pair gone from the worker. */
void coord_quota_hold(WorkerLimits *l, uint64_t pair);
void coord_quota_acked(WorkerLimits *l, uint64_t pair, unsigned game);
void coord_quota_release(WorkerLimits *l, uint64_t pair);
void coord_quota_release_all(WorkerLimits *l);
int coord_quota_held(const WorkerLimits *l);

#endif
