/*
 * The server's worker table: every worker rank that has sent a message, known by its
 * ZeroMQ routing id, with what the server keeps about it: a name for log lines, the pair
 * it holds, its limits (message rate, pairs in flight), its CURVE key, and when it was
 * last heard from.
 *
 * Entries are never removed, so that an index stays valid in the schedule (a pair's
 * worker); a worker silent past the heartbeat timeout is only marked dead, and comes
 * back with its next message.
 */
#ifndef CHUHE_COORD_WORKERS_H
#define CHUHE_COORD_WORKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_auth.h"
#include "coord_config.h"
#include "coord_log.h"
#include "coord_rate.h"
#include "coord_quota.h"
#include "coord_sched.h"
#include "contracts/keys.h"
#include "contracts/protocol.h"

enum {
    COORD_IDENTITY_MAX = 255, /* ZeroMQ routing ids are at most 255 bytes */
};

typedef struct {
    uint8_t id[COORD_IDENTITY_MAX];
    size_t idlen;
    char name[PROTO_HOST_MAX + 96]; /* for log lines */
    bool hello;
    uint32_t rank;
    char host[PROTO_HOST_MAX + 1]; /* from its HELLO */
    double last_seen;
    bool alive;
    bool told_done;
    int64_t pair; /* the pair it holds, -1 for none */
    uint64_t stored, rejected;
    WorkerLimits limits;
    bool throttle_logged; /* its first wait for ACKs under --max-inflight is logged */
    /* CURVE: the key its messages carry, checked against the allow-list generation */
    char key[KEYS_Z85_LEN + 1];
    char key_name[KEYS_NAME_MAX + 1];
    uint64_t key_generation;
    bool key_allowed;
} CoordWorker;

typedef struct {
    CoordWorker *items;
    int count;
    size_t cap;
} CoordWorkers;

/* The index of the worker with routing id id[0..len-1]; a new entry (alive, last seen
 * now) for an id not seen before. */
int coord_workers_find(CoordWorkers *t, const uint8_t *id, size_t len, const CoordConfig *cfg,
                       double now);

/* Workers not marked dead. */
int coord_workers_live(const CoordWorkers *t);

/* A HELLO: the worker's rank, host and name; logs that it joined. */
void coord_workers_hello(CoordWorker *w, const ProtoHello *h);

/* Whether worker i's message is taken under the rate limit. Logs (through gate) the
 * start of a run of drops; a worker that starts to flood is ignored for a while and its
 * pairs go back to the queue. */
bool coord_workers_admit(CoordWorkers *t, int i, const CoordConfig *cfg, Schedule *sched,
                         CoordLogGate *gate, double now);

/* CURVE: whether key, the one worker w's message came with, is (still) on auth's
 * allow-list; true without CURVE. A reload can take a key off; the connections made with
 * it stay up, so their messages are dropped (logged through gate). */
bool coord_workers_key_allowed(CoordWorker *w, const CoordAuth *auth, const char *key,
                               CoordLogGate *gate, double now);

/* Marks workers silent past the heartbeat timeout dead and puts their pairs back in the
 * queue; logs the runs of dropped messages that have ended. */
void coord_workers_sweep(CoordWorkers *t, const CoordConfig *cfg, Schedule *sched, double now);

void coord_workers_free(CoordWorkers *t);

#endif
