/*
 * A serving coordinator's state, shared by the server loop (coord_server.c) and the
 * parts it hands messages to: the worker table (coord_workers), what goes out and the
 * group commit (coord_outbox), handing out work (coord_work) and storing games
 * (coord_store). One thread owns it, from coord_server_run's start to its end.
 */
#ifndef CHUHE_COORD_HUB_H
#define CHUHE_COORD_HUB_H

#include <stdbool.h>
#include <stdint.h>

#include "coord_auth.h"
#include "coord_outbox.h"
#include "coord_log.h"
#include "coord_rate.h"
#include "coord_server.h"
#include "coord_store.h"
#include "coord_workers.h"
#include "contracts/protocol.h"

struct CoordHub {
    CoordRun *run; /* NULL until coord_server_run */
    const CoordConfig *cfg;
    void *ctx, *router;
    CoordAuth *auth;
    CoordWorkers workers;
    CoordOutbox out;
    CoordUnflushed unflushed; /* games waiting for the flush, to be counted then */
    ProtoMsg *msg;            /* the message being handled (large) */
    uint8_t *buf;       /* PROTO_MAX_MESSAGE bytes: the message received, then each one encoded */
    double now;         /* seconds (time_now_ms), read at the top of each turn and after the poll */
    double finished_at; /* when the target was reached; < 0 before */
    bool complete_at_start;
    CoordLogGate gate;                 /* lines about dropped messages and games not taken */
    int sigfd;                         /* the signal handler's self-pipe */
    char endpoint[COORD_ENDPOINT_MAX]; /* the bound endpoint, with a picked port */
};

#endif
